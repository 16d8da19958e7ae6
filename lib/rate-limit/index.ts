// Fixed-window counters kept in the database so every instance shares them (CONTRACT.md §3, §9).
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { getDb } from "@/lib/db";

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
 * Counts one hit against `rule` for `subject` and says whether it is within the limit.
 * The increment is a single atomic upsert; a stale window is reset by a conditional update,
 * so concurrent instances never lose a hit or reset twice.
 */
export async function hitRateLimit(rule: RateLimitRule, subject: string, clock: Clock = systemClock): Promise<RateLimitResult> {
  const db = getDb();
  const now = clock.now();
  const key = `${rule.name}:${subject}`;
  const windowMs = rule.windowSeconds * 1000;
  const expiresAt = new Date(now.getTime() + windowMs);
  let bucket = await db.rateLimitBucket.upsert({
    where: { key },
    create: { key, windowStart: now, count: 1, expiresAt },
    update: { count: { increment: 1 } },
  });
  if (bucket.expiresAt.getTime() <= now.getTime()) {
    const reset = await db.rateLimitBucket.updateMany({
      where: { key, windowStart: bucket.windowStart },
      data: { windowStart: now, count: 1, expiresAt },
    });
    bucket = reset.count === 1 ? { ...bucket, windowStart: now, count: 1, expiresAt } : await db.rateLimitBucket.update({ where: { key }, data: { count: { increment: 1 } } });
  }
  const resetSeconds = Math.max(1, Math.ceil((bucket.expiresAt.getTime() - now.getTime()) / 1000));
  return { allowed: bucket.count <= rule.limit, limit: rule.limit, remaining: Math.max(0, rule.limit - bucket.count), resetSeconds };
}

/** Reads a bucket without counting (for "is this e-mail locked out?" checks). */
export async function peekRateLimit(rule: RateLimitRule, subject: string, clock: Clock = systemClock): Promise<RateLimitResult> {
  const now = clock.now();
  const bucket = await getDb().rateLimitBucket.findUnique({ where: { key: `${rule.name}:${subject}` } });
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
