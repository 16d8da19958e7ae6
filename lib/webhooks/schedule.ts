// The retry schedule: exponential back-off with jitter. After the n-th failed attempt the next one waits
// 30 s × 3^(n-1) (30 s, 1.5 min, 4.5 min, 13.5 min, 40 min, 2 h, 6 h, then 12 h at most), each ±20 %;
// a delivery still failing three days after its event is given up. The tests' --test-webhook-retry-scale (a
// positive number, default 1; lib/config/test-options.ts) multiplies every interval and the three days: they run the
// schedule in seconds.
import { getConfig } from "@/lib/config";

export const FIRST_RETRY_SECONDS = 30;
export const RETRY_GROWTH = 3;
export const MAX_RETRY_SECONDS = 12 * 3600;
export const GIVE_UP_AFTER_SECONDS = 3 * 24 * 3600;
export const JITTER = 0.2;

export function retryScale(): number {
  return getConfig().webhooks.retryScale;
}

/** Seconds to wait after the `failedAttempts`-th failure, before jitter. */
export function baseRetryDelaySeconds(failedAttempts: number): number {
  return Math.min(FIRST_RETRY_SECONDS * RETRY_GROWTH ** Math.max(0, failedAttempts - 1), MAX_RETRY_SECONDS);
}

/**
 * When to try again after the `failedAttempts`-th failure at `now` of an event created at `eventCreatedAt`,
 * or null to give up. The last try is made at the three-day mark itself.
 */
export function nextAttemptAt(failedAttempts: number, now: Date, eventCreatedAt: Date, random: () => number = Math.random, scale: number = retryScale()): Date | null {
  const deadline = eventCreatedAt.getTime() + GIVE_UP_AFTER_SECONDS * 1000 * scale;
  if (now.getTime() >= deadline) return null;
  const jitter = 1 + JITTER * (2 * random() - 1);
  const delayMs = baseRetryDelaySeconds(failedAttempts) * 1000 * scale * jitter;
  return new Date(Math.min(now.getTime() + delayMs, deadline));
}
