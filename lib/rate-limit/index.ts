// Fixed-window counters kept in the database so every instance shares them (CONTRACT.md §3, §9): sign-in,
// registration, register_agent, batch. One statement both checks and counts, so no interleaving of
// requests or instances lets more than `limit` hits through a window. The budgets of the anonymous read
// surfaces are counted in lib/shared-state instead (./charge.ts); every budget is listed in ./budgets.ts.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, execute, query, readDate } from "@/lib/db";
import { recordRateLimitRefusal } from "@/lib/observability/metrics";
import { limitFor, type RateLimitRule } from "./budgets";

export { BUDGETS, budgetEnvironmentProblems, budgetRule, limitFor, noAddressLimit, type BudgetDefinition, type BudgetName, type RateLimitRule } from "./budgets";
export { chargeBudgets, chargeInstanceBudget, resetInstanceBudgets, type BudgetCharge } from "./charge";

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  /** Start of the window the hit was counted in (to give a reservation back in the same window). */
  windowStart?: Date;
}

// Counts $5 hits (1 for one request): inserts a fresh window, or on the existing row restarts an expired window
// at $5, counts $5 more in a live window that has room for all of them, and leaves a live window without that
// room alone (no row returned). The same text runs on SQLite (3.35+) and PostgreSQL; SET expressions read the
// row as it was, and ON CONFLICT locks it (PostgreSQL) or the one connection serialises it (SQLite), so
// concurrent reservations never pass the limit.
const RESERVE = `INSERT INTO "RateLimitBucket" ("key", "windowStart", "count", "expiresAt") VALUES ($1, $2, $5, $3)
ON CONFLICT ("key") DO UPDATE SET
  "windowStart" = CASE WHEN "RateLimitBucket"."expiresAt" <= $2 THEN $2 ELSE "RateLimitBucket"."windowStart" END,
  "count" = CASE WHEN "RateLimitBucket"."expiresAt" <= $2 THEN $5 ELSE "RateLimitBucket"."count" + $5 END,
  "expiresAt" = CASE WHEN "RateLimitBucket"."expiresAt" <= $2 THEN $3 ELSE "RateLimitBucket"."expiresAt" END
WHERE "RateLimitBucket"."expiresAt" <= $2 OR "RateLimitBucket"."count" + $5 <= $4
RETURNING "count", "windowStart", "expiresAt"`;

const READ = `SELECT "count", "windowStart", "expiresAt" FROM "RateLimitBucket" WHERE "key" = $1`;

// Only within the window the reservation was made in, and never below zero. Giving back the bucket's only
// reservation removes the row, so a successful sign-in leaves no bucket behind.
const GIVE_BACK_LAST = `DELETE FROM "RateLimitBucket" WHERE "key" = $1 AND "windowStart" = $2 AND "count" <= 1`;
const GIVE_BACK = `UPDATE "RateLimitBucket" SET "count" = "count" - 1 WHERE "key" = $1 AND "windowStart" = $2 AND "count" > 0`;

interface BucketRow {
  count: number;
  windowStart: unknown;
  expiresAt: unknown;
}

const secondsUntil = (end: Date, now: Date): number => Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));

/** The result of an allowed hit after which the window counts `count`. */
function allowedHit(row: BucketRow, count: number, limit: number, now: Date): RateLimitResult {
  return { allowed: true, limit, remaining: Math.max(0, limit - count), resetSeconds: secondsUntil(readDate(row.expiresAt), now), windowStart: readDate(row.windowStart) };
}

/** Refused: the live window is full. Reads when it ends for Retry-After (a refusal only, off the hot path). */
async function refusedHit(rule: RateLimitRule, key: string, limit: number, now: Date): Promise<RateLimitResult> {
  recordRateLimitRefusal(rule.name);
  const [full] = await query<BucketRow>(READ, [key]);
  return { allowed: false, limit, remaining: 0, resetSeconds: full ? secondsUntil(readDate(full.expiresAt), now) : rule.windowSeconds };
}

/**
 * Reserves one hit of `rule` for `subject`: counted and allowed when the window has room, refused (and not
 * counted) when it is full. Check and count are one statement, so it holds under any parallelism.
 */
export async function reserveRateLimit(rule: RateLimitRule, subject: string, clock: Clock = systemClock): Promise<RateLimitResult> {
  const [result] = await reserveRateLimitHits(rule, subject, 1, clock.now());
  return result!;
}

/**
 * Reserves `hits` hits of `rule` for `subject` at `now`, as that many reserveRateLimit calls one after another
 * would (the same results, in order), in one statement when the window has room for all of them. For writes
 * made together (an A2A commit batch): run it inside a transaction, or the fallback's hits may interleave with
 * other requests' (still never past the limit).
 */
export async function reserveRateLimitHits(rule: RateLimitRule, subject: string, hits: number, now: Date): Promise<RateLimitResult[]> {
  const key = `${rule.name}:${subject}`;
  const limit = limitFor(rule, subject);
  const windowEnd = new Date(now.getTime() + rule.windowSeconds * 1000);
  if (hits <= limit) {
    const [row] = await query<BucketRow>(RESERVE, [key, now, windowEnd, limit, hits]);
    if (row) {
      const before = Number(row.count) - hits;
      return Array.from({ length: hits }, (_, index) => allowedHit(row, before + index + 1, limit, now));
    }
    // One hit without room: the window is full, trying it again alone would only repeat the statement.
    if (hits === 1) return [await refusedHit(rule, key, limit, now)];
  }
  // Not room for all: one at a time until the window is full; a refusal leaves it full for the rest.
  const results: RateLimitResult[] = [];
  while (results.length < hits) {
    const [row] = await query<BucketRow>(RESERVE, [key, now, windowEnd, limit, 1]);
    if (!row) break;
    results.push(allowedHit(row, Number(row.count), limit, now));
  }
  if (results.length < hits) {
    const refused = await refusedHit(rule, key, limit, now);
    results.push(refused);
    while (results.length < hits) {
      recordRateLimitRefusal(rule.name);
      results.push({ ...refused });
    }
  }
  return results;
}

/** Counts one hit and says whether it is within the limit (a refused hit is not counted: the window stays full). */
export const hitRateLimit = reserveRateLimit;

/** Gives back a hit reserved by reserveRateLimit (e.g. a sign-in that succeeded), within the same window only. */
export async function releaseRateLimit(rule: RateLimitRule, subject: string, reserved: RateLimitResult): Promise<void> {
  if (!reserved.allowed || !reserved.windowStart) return;
  const params = [`${rule.name}:${subject}`, reserved.windowStart];
  if ((await execute(GIVE_BACK_LAST, params)) === 0) await execute(GIVE_BACK, params);
}

/** Reads a bucket without counting (for "is this e-mail locked out?" checks). */
export async function peekRateLimit(rule: RateLimitRule, subject: string, clock: Clock = systemClock): Promise<RateLimitResult> {
  const now = clock.now();
  const limit = limitFor(rule, subject);
  const [row] = await query<BucketRow>(READ, [`${rule.name}:${subject}`]);
  const expiresAt = row ? readDate(row.expiresAt) : null;
  if (!row || !expiresAt || expiresAt.getTime() <= now.getTime()) return { allowed: true, limit, remaining: limit, resetSeconds: rule.windowSeconds };
  const count = Number(row.count);
  return { allowed: count < limit, limit, remaining: Math.max(0, limit - count), resetSeconds: secondsUntil(expiresAt, now) };
}

/** RateLimit-* response headers (IETF draft) for a result. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    "RateLimit-Limit": String(result.limit),
    "RateLimit-Remaining": String(result.remaining),
    "RateLimit-Reset": String(result.resetSeconds),
  };
}

/** The janitor: removes up to `limit` buckets whose window was over at `now` (such a bucket counts as absent). */
export function deleteEndedWindows(now: Date, limit: number): Promise<number> {
  return db().execute(`DELETE FROM "RateLimitBucket" WHERE "key" IN (SELECT "key" FROM "RateLimitBucket" WHERE "expiresAt" <= $1 LIMIT $2)`, [now, limit]);
}
