// The memory store: one process's fixed windows and once-keys (SHARED_STATE=memory, the embedded default with
// SQLite). A charge is a Map lookup and an increment, answered synchronously. It is also every other store's
// fallback for counters while that store does not answer (./redis.ts), and the Redis store's fallback for once-keys
// when the database is SQLite.
import type { ChargeOutcome, CounterCharge, OnceAndChargeOutcome, OnceClaim, SharedStateStore } from "./types";

interface Window {
  count: number;
  /** Epoch milliseconds at which this window ends. */
  resetAt: number;
}

/** Most keys one scope's windows hold: beyond, the oldest windows are dropped (bounded memory under a flood of callers). */
export const MAX_KEYS_PER_SCOPE = 100_000;

/**
 * Fixed windows per key, all of one length. A window is (re)inserted when it starts, so the Map's insertion order is
 * the order of expiry: pruning stops at the first live window.
 */
export class WindowCounter {
  private readonly windows = new Map<string, Window>();
  private nextPruneAt = 0;

  constructor(
    readonly windowSeconds: number,
    private readonly maxKeys: number = MAX_KEYS_PER_SCOPE,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** Seconds until `key` may spend `cost` of `limit` units, or 0 when it may now. Counts nothing. */
  wait(key: string, cost: number, limit: number, nowMs: number): number {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= nowMs) return cost <= limit ? 0 : Math.max(1, this.windowSeconds);
    return window.count + cost <= limit ? 0 : Math.max(1, Math.ceil((window.resetAt - nowMs) / 1000));
  }

  /** Spends `cost` units of `key`'s window (call after wait() said 0). */
  spend(key: string, cost: number, nowMs: number): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > nowMs) {
      window.count += cost;
      return;
    }
    if (window) this.windows.delete(key);
    this.prune(nowMs);
    this.windows.set(key, { count: cost, resetAt: nowMs + this.windowSeconds * 1000 });
  }

  private prune(nowMs: number): void {
    if (nowMs >= this.nextPruneAt) {
      this.nextPruneAt = nowMs + 1000;
      for (const [key, window] of this.windows) {
        if (window.resetAt > nowMs) break;
        this.windows.delete(key);
      }
    }
    while (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next();
      if (oldest.done) break;
      this.windows.delete(oldest.value);
    }
  }
}

/** Most once-keys kept; when full, those whose time has passed go first, then the oldest. */
export const MAX_ONCE_KEYS = 100_000;

/** Keys accepted once, each kept until its time (after that the claim's own expiry refuses a replay). */
export class OnceMemory {
  private readonly until = new Map<string, number>();

  constructor(private readonly limit = MAX_ONCE_KEYS) {}

  /** True the first time `key` is seen (kept until `until`, epoch seconds), false while it is kept. */
  remember(key: string, until: number, now: number): boolean {
    const known = this.until.get(key);
    if (known !== undefined && known >= now) return false;
    if (this.until.size >= this.limit) this.prune(now);
    this.until.set(key, until);
    return true;
  }

  get size(): number {
    return this.until.size;
  }

  private prune(now: number): void {
    for (const [key, until] of this.until) if (until < now) this.until.delete(key);
    // Still full: drop the oldest insertions (Map keeps insertion order).
    const excess = this.until.size - Math.floor(this.limit * 0.9);
    if (excess <= 0) return;
    let dropped = 0;
    for (const key of this.until.keys()) {
      if (dropped++ >= excess) break;
      this.until.delete(key);
    }
  }
}

/** One process's counters and once-keys. */
export class MemoryCounters {
  private readonly scopes = new Map<string, WindowCounter>();
  private readonly once = new OnceMemory();

  /** The windows of one scope (one window length per scope: a budget's window never changes while a process runs). */
  counter(scope: string, windowSeconds: number): WindowCounter {
    let counter = this.scopes.get(scope);
    if (counter === undefined || counter.windowSeconds !== windowSeconds) {
      counter = new WindowCounter(windowSeconds);
      this.scopes.set(scope, counter);
    }
    return counter;
  }

  charge(charges: readonly CounterCharge[], nowMs: number): ChargeOutcome {
    let wait = 0;
    for (const charge of charges) if (charge.cost > 0) wait = Math.max(wait, this.counter(charge.scope, charge.windowSeconds).wait(charge.key, charge.cost, charge.limit, nowMs));
    if (wait > 0) return { retryAfterSeconds: wait };
    for (const charge of charges) if (charge.cost > 0) this.counter(charge.scope, charge.windowSeconds).spend(charge.key, charge.cost, nowMs);
    return null;
  }

  /** Adds units whatever the limit (counts another store made, merged back). */
  add(charge: CounterCharge, nowMs: number): void {
    if (charge.cost > 0) this.counter(charge.scope, charge.windowSeconds).spend(charge.key, charge.cost, nowMs);
  }

  acceptOnce(claim: OnceClaim, nowMs: number): boolean {
    return this.once.remember(`${claim.scope} ${claim.key}`, claim.untilEpochSeconds, Math.floor(nowMs / 1000));
  }

  /** Forgets everything (tests). */
  clear(): void {
    this.scopes.clear();
  }
}

export class MemoryStore implements SharedStateStore {
  readonly name = "memory" as const;

  constructor(readonly counters: MemoryCounters = new MemoryCounters()) {}

  charge(charges: readonly CounterCharge[], nowMs: number): ChargeOutcome {
    return this.counters.charge(charges, nowMs);
  }

  acceptOnce(claim: OnceClaim, nowMs: number): boolean {
    return this.counters.acceptOnce(claim, nowMs);
  }

  acceptOnceAndCharge(claim: OnceClaim, charges: readonly CounterCharge[], nowMs: number): OnceAndChargeOutcome {
    if (!this.counters.acceptOnce(claim, nowMs)) return { accepted: false };
    return { accepted: true, refused: this.counters.charge(charges, nowMs) };
  }

  condition(): "ok" {
    return "ok";
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}
}
