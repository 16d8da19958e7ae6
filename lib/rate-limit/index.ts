// Fixed-window counters kept in the database so every instance shares them (CONTRACT.md §3, §9).
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, readDate } from "@/lib/db";
import { recordRateLimitRefusal } from "@/lib/operations/metrics";

export interface RateLimitRule {
  /** Bucket name, e.g. "identity:ip". */
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Counts one hit against `rule` for `subject` and says whether it is within the limit. The increment and
 * the reset of a stale window are one atomic upsert, so concurrent instances never lose a hit or reset twice.
 */
export async function hitRateLimit(rule: RateLimitRule, subject: string, clock: Clock = systemClock): Promise<RateLimitResult> {
  const now = clock.now();
  const key = `${rule.name}:${subject}`;
  const expiresAt = new Date(now.getTime() + rule.windowSeconds * 1000);
  // One statement counts the hit, and starts a new window when the stored one is over.
  const rows = await db().query<{ count: number; expiresAt: unknown }>(
    `INSERT INTO "RateLimitBucket" ("key", "windowStart", "count", "expiresAt") VALUES ($1, $2, 1, $3)
     ON CONFLICT ("key") DO UPDATE SET
       "count" = CASE WHEN "RateLimitBucket"."expiresAt" <= $2 THEN 1 ELSE "RateLimitBucket"."count" + 1 END,
       "windowStart" = CASE WHEN "RateLimitBucket"."expiresAt" <= $2 THEN $2 ELSE "RateLimitBucket"."windowStart" END,
       "expiresAt" = CASE WHEN "RateLimitBucket"."expiresAt" <= $2 THEN $3 ELSE "RateLimitBucket"."expiresAt" END
     RETURNING "count", "expiresAt"`,
    [key, now, expiresAt],
  );
  const count = Number(rows[0]!.count);
  if (count > rule.limit) recordRateLimitRefusal(rule.name);
  const resetSeconds = Math.max(1, Math.ceil((readDate(rows[0]!.expiresAt).getTime() - now.getTime()) / 1000));
  return { allowed: count <= rule.limit, limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds };
}

/** Reads a bucket without counting (for "is this e-mail locked out?" checks). */
export async function peekRateLimit(rule: RateLimitRule, subject: string, clock: Clock = systemClock): Promise<RateLimitResult> {
  const now = clock.now();
  const rows = await db().query<{ count: number; expiresAt: unknown }>(`SELECT "count", "expiresAt" FROM "RateLimitBucket" WHERE "key" = $1`, [`${rule.name}:${subject}`]);
  const bucket = rows[0] ? { count: Number(rows[0].count), expiresAt: readDate(rows[0].expiresAt) } : null;
  if (!bucket || bucket.expiresAt.getTime() <= now.getTime()) {
    return { allowed: true, limit: rule.limit, remaining: rule.limit, resetSeconds: rule.windowSeconds };
  }
  const resetSeconds = Math.max(1, Math.ceil((bucket.expiresAt.getTime() - now.getTime()) / 1000));
  return { allowed: bucket.count < rule.limit, limit: rule.limit, remaining: Math.max(0, rule.limit - bucket.count), resetSeconds };
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
