// What every store of the shared state answers (./memory.ts, ./postgres.ts, ./redis.ts), and the shapes the callers
// hand it. A counter charge names its window and limit itself: this module knows nothing of budgets
// (lib/rate-limit/budgets.ts), only of fixed windows, and of keys accepted once until a time.

/** A value now, or later: the memory store answers synchronously, so its callers never wait for a turn they did not wait for before. */
export type MaybePromise<T> = T | Promise<T>;

/** `cost` units of the fixed window of `key` in `scope` (windows start with their first unit and last `windowSeconds`). */
export interface CounterCharge {
  /** The counter's family, e.g. a budget's bucket name ("mcp", "lookups"). */
  readonly scope: string;
  readonly key: string;
  /** Units spent; 0 spends nothing and is never refused. */
  readonly cost: number;
  /** Units one window holds. */
  readonly limit: number;
  readonly windowSeconds: number;
}

/** A key to accept once: seen again before `untilEpochSeconds`, it is refused (a replayed nonce, a DPoP proof's jti). */
export interface OnceClaim {
  readonly scope: string;
  readonly key: string;
  /** Epoch seconds until which the key is remembered (after that, the claim's own expiry refuses a replay). */
  readonly untilEpochSeconds: number;
}

/** A refused charge: nothing was counted; retry after this many seconds (the longest of the refusing windows, at least 1). */
export interface ChargeRefusal {
  readonly retryAfterSeconds: number;
}

/** null: every charge was counted. */
export type ChargeOutcome = ChargeRefusal | null;

/** The combined call's answer: the once-key first, then (only when it was new) the charges, all or none. */
export type OnceAndChargeOutcome = { readonly accepted: false } | { readonly accepted: true; readonly refused: ChargeOutcome };

/** Which store holds the fleet's state (lib/config SHARED_STATE). */
export type SharedStateStoreName = "memory" | "postgres" | "redis";

/** ok: the configured store answers; degraded: it does not (or not in time), and this instance's fallback answers instead. */
export type SharedStateCondition = "ok" | "degraded";

export interface SharedStateStore {
  readonly name: SharedStateStoreName;
  /** Spends every charge or none. */
  charge(charges: readonly CounterCharge[], nowMs: number): MaybePromise<ChargeOutcome>;
  /** True the first time `claim.key` is seen in its scope before its time. */
  acceptOnce(claim: OnceClaim, nowMs: number): MaybePromise<boolean>;
  /** The once-key, then, only when it is new, the charges: in one round trip where the store has round trips. */
  acceptOnceAndCharge(claim: OnceClaim, charges: readonly CounterCharge[], nowMs: number): MaybePromise<OnceAndChargeOutcome>;
  condition(): SharedStateCondition;
  /** Waits (bounded) for the store to be reachable at start; never throws. */
  start(): Promise<void>;
  /** Writes what is pending and closes connections (shutdown). */
  stop(): Promise<void>;
}
