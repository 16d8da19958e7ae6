// The postgres store (SHARED_STATE=postgres, the default on PostgreSQL without REDIS_URL), and the one writer of the
// "SharedState" table (tests/unit/store-ownership.test.ts; the janitor prunes it through deleteEndedSharedState).
//
// Once-keys: one statement per check (INSERT … ON CONFLICT … RETURNING), exact for the whole fleet.
//
// Counters: counted in batches (bench/README.md "Shared state" has the measurement that decided it: one statement
// per request cost far more than the 25 % on /ask and MCP lookups). Each instance decides from what it last
// heard from the database plus what it has counted since, and syncs its counts at most every SYNC_INTERVAL_MS in
// one statement for all its keys, which returns the fleet's totals. The overshoot is bounded: an instance holds at
// most unsyncedCap(limit) units of a key that the database has not seen (a tenth of the allowance, at least one);
// a request that would pass that waits for the next sync and is then decided on the fleet's total. So within one
// window a fleet of N instances passes an allowance by at most N × unsyncedCap(limit) units
// (tests/unit/db/shared-state.test.ts). A single instance never passes it. While the database does not answer, the
// instance decides alone (its own counts, no cap), as the memory store would.
import { systemClock, type Clock } from "@/lib/clock";
import { db, readDate } from "@/lib/db";
import { recordSharedStateFallback } from "@/lib/observability/metrics";
import { ConditionTracker } from "./condition";
import { MemoryCounters } from "./memory";
import type { ChargeOutcome, CounterCharge, OnceAndChargeOutcome, OnceClaim, SharedStateStore } from "./types";

/** The least time between two syncs of one instance's counts. */
export const SYNC_INTERVAL_MS = 250;
/** Keys per sync statement (3 parameters each). */
const SYNC_CHUNK = 500;
/** Keys one instance tracks at most; idle ones past their window go first. */
const MAX_TRACKED_KEYS = 100_000;

/** Units of a key one instance may hold that the database has not seen: a tenth of the allowance, at least one. */
export function unsyncedCap(limit: number): number {
  return Math.max(1, Math.ceil(limit / 10));
}

export const counterRowKey = (scope: string, key: string): string => `c:${scope}:${key}`;
export const onceRowKey = (scope: string, key: string): string => `o:${scope}:${key}`;

// A key seen before whose time has passed is taken again; one seen and still kept returns no row.
const ACCEPT_ONCE = `INSERT INTO "SharedState" ("key", "count", "expiresAt") VALUES ($1, 1, $2)
ON CONFLICT ("key") DO UPDATE SET "count" = 1, "expiresAt" = excluded."expiresAt"
WHERE "SharedState"."expiresAt" <= $3
RETURNING "count"`;

/** Adds each row's count to its key's live window, or starts the window anew when it has ended ($1: now). */
function syncStatement(rows: number): string {
  const values = Array.from({ length: rows }, (_, i) => `($${3 * i + 2}, $${3 * i + 3}, $${3 * i + 4})`).join(", ");
  return `INSERT INTO "SharedState" ("key", "count", "expiresAt") VALUES ${values}
ON CONFLICT ("key") DO UPDATE SET
  "count" = CASE WHEN "SharedState"."expiresAt" <= $1 THEN excluded."count" ELSE "SharedState"."count" + excluded."count" END,
  "expiresAt" = CASE WHEN "SharedState"."expiresAt" <= $1 THEN excluded."expiresAt" ELSE "SharedState"."expiresAt" END
RETURNING "key", "count", "expiresAt"`;
}

/** Takes `claim` once for the whole fleet: true when it was not held (one statement). */
export async function acceptOnceInDatabase(claim: OnceClaim, nowMs: number): Promise<boolean> {
  const rows = await db().query<{ count: number }>(ACCEPT_ONCE, [onceRowKey(claim.scope, claim.key), new Date(claim.untilEpochSeconds * 1000), new Date(nowMs)]);
  return rows.length > 0;
}

/** The janitor: removes up to `limit` rows whose window or once-key ended at `now`. */
export function deleteEndedSharedState(now: Date, limit: number): Promise<number> {
  return db().execute(`DELETE FROM "SharedState" WHERE "key" IN (SELECT "key" FROM "SharedState" WHERE "expiresAt" <= $1 LIMIT $2)`, [now, limit]);
}

interface Tracked {
  readonly rowKey: string;
  windowSeconds: number;
  /** Epoch milliseconds at which the window this instance counts in ends. */
  windowEnd: number;
  /** The fleet's count at the last sync, this instance's synced units included. */
  fleet: number;
  /** Counted here, not yet sent. */
  pending: number;
  /** Sent in the sync under way. */
  sending: number;
}

interface Waiter {
  charges: readonly CounterCharge[];
  resolve(outcome: ChargeOutcome): void;
}

type Verdict = ChargeOutcome | "wait";

/** One instance's view of the fleet's counters, synced in batches. */
export class BatchedCounters {
  private readonly tracked = new Map<string, Tracked>();
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private lastSyncAt = Number.NEGATIVE_INFINITY;
  /** The last sync failed: decide alone, with no cap, until one succeeds. */
  private alone = false;
  /**
   * The charges' clock minus this one's, at the last charge: the counts keep the time of the requests that make them
   * (a request's injected clock, as the other stores do), while syncs are paced by this one. 0 in production.
   */
  private offsetMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly onSync: (ok: boolean, error?: unknown) => void = () => {},
    private readonly intervalMs = SYNC_INTERVAL_MS,
  ) {}

  charge(charges: readonly CounterCharge[], nowMs: number = this.clock.now().getTime()): ChargeOutcome | Promise<ChargeOutcome> {
    this.offsetMs = nowMs - this.clock.now().getTime();
    // Behind a waiter, wait too: requests are decided in the order they came.
    const verdict = this.waiters.length > 0 ? "wait" : this.decide(charges, nowMs);
    if (verdict !== "wait") return verdict;
    return new Promise<ChargeOutcome>((resolve) => {
      this.waiters.push({ charges, resolve });
      this.schedule();
    });
  }

  /** Sends what is pending now (shutdown, tests). */
  async flush(): Promise<void> {
    await this.syncing;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.sync();
  }

  private entry(charge: CounterCharge, nowMs: number): Tracked {
    const rowKey = counterRowKey(charge.scope, charge.key);
    let entry = this.tracked.get(rowKey);
    if (entry === undefined) {
      if (this.tracked.size >= MAX_TRACKED_KEYS) this.prune(nowMs);
      entry = { rowKey, windowSeconds: charge.windowSeconds, windowEnd: nowMs + charge.windowSeconds * 1000, fleet: 0, pending: 0, sending: 0 };
      this.tracked.set(rowKey, entry);
    } else if (entry.windowEnd <= nowMs) {
      // A new window: what was counted in the old one no longer counts (the database restarts its row the same way).
      entry.windowEnd = nowMs + charge.windowSeconds * 1000;
      entry.windowSeconds = charge.windowSeconds;
      entry.fleet = 0;
      entry.pending = 0;
    }
    return entry;
  }

  private decide(charges: readonly CounterCharge[], nowMs: number): Verdict {
    let waitSeconds = 0;
    let mustSync = false;
    const entries: (Tracked | undefined)[] = [];
    for (const charge of charges) {
      if (charge.cost <= 0) {
        entries.push(undefined);
        continue;
      }
      const entry = this.entry(charge, nowMs);
      entries.push(entry);
      const unsynced = entry.pending + entry.sending;
      if (entry.fleet + unsynced + charge.cost > charge.limit) waitSeconds = Math.max(waitSeconds, Math.max(1, Math.ceil((entry.windowEnd - nowMs) / 1000)));
      else if (!this.alone && unsynced > 0 && unsynced + charge.cost > unsyncedCap(charge.limit)) mustSync = true;
    }
    if (waitSeconds > 0) return { retryAfterSeconds: waitSeconds };
    if (mustSync) return "wait";
    charges.forEach((charge, i) => {
      const entry = entries[i];
      if (entry) entry.pending += charge.cost;
    });
    this.schedule();
    return null;
  }

  /** A sync SYNC_INTERVAL_MS after the last one started (or now), unless one is due already. */
  private schedule(): void {
    if (this.timer !== undefined || this.syncing !== undefined) return;
    const delay = Math.max(0, this.lastSyncAt + this.intervalMs - this.clock.now().getTime());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, delay);
    this.timer.unref();
  }

  private sync(): Promise<void> {
    this.syncing ??= this.send().finally(() => {
      this.syncing = undefined;
      this.settleWaiters();
      if (this.waiters.length > 0 || [...this.tracked.values()].some((entry) => entry.pending > 0)) this.schedule();
    });
    return this.syncing;
  }

  /** Now, in the charges' time. */
  private now(): number {
    return this.clock.now().getTime() + this.offsetMs;
  }

  private async send(): Promise<void> {
    this.lastSyncAt = this.clock.now().getTime();
    const nowMs = this.now();
    const outgoing = [...this.tracked.values()].filter((entry) => entry.pending > 0).sort((a, b) => (a.rowKey < b.rowKey ? -1 : 1));
    if (outgoing.length === 0) return;
    for (const entry of outgoing) {
      entry.sending = entry.pending;
      entry.pending = 0;
    }
    try {
      for (let start = 0; start < outgoing.length; start += SYNC_CHUNK) {
        const chunk = outgoing.slice(start, start + SYNC_CHUNK);
        const params = [new Date(nowMs), ...chunk.flatMap((entry) => [entry.rowKey, entry.sending, new Date(nowMs + entry.windowSeconds * 1000)])];
        const rows = await db().query<{ key: string; count: number; expiresAt: unknown }>(syncStatement(chunk.length), params);
        for (const row of rows) {
          const entry = this.tracked.get(row.key);
          if (entry === undefined) continue;
          entry.fleet = Number(row.count);
          entry.windowEnd = readDate(row.expiresAt).getTime();
          entry.sending = 0;
        }
      }
      this.alone = false;
      this.onSync(true);
    } catch (error) {
      // Not lost: what was being sent is sent with the next sync (unless its window ends first).
      for (const entry of outgoing) {
        entry.pending += entry.sending;
        entry.sending = 0;
      }
      this.alone = true;
      this.onSync(false, error);
    }
  }

  private settleWaiters(): void {
    const waiting = this.waiters;
    this.waiters = [];
    const nowMs = this.now();
    for (const waiter of waiting) {
      const verdict = this.waiters.length > 0 ? "wait" : this.decide(waiter.charges, nowMs);
      if (verdict === "wait") this.waiters.push(waiter);
      else waiter.resolve(verdict);
    }
  }

  private prune(nowMs: number): void {
    for (const [key, entry] of this.tracked) if (entry.windowEnd <= nowMs && entry.pending === 0 && entry.sending === 0) this.tracked.delete(key);
    for (const [key, entry] of this.tracked) {
      if (this.tracked.size < MAX_TRACKED_KEYS) break;
      if (entry.pending === 0 && entry.sending === 0) this.tracked.delete(key);
    }
  }
}

/** Counters in batches, once-keys one statement each; while the database does not answer, this instance alone. */
export class PostgresStore implements SharedStateStore {
  readonly name = "postgres" as const;
  private readonly tracker = new ConditionTracker("postgres", "its own counts and once-keys in memory");
  private readonly counters: BatchedCounters;
  private readonly fallback = new MemoryCounters();

  constructor(private readonly clock: Clock = systemClock) {
    this.counters = new BatchedCounters(clock, (ok) => (ok ? this.tracker.recover() : this.tracker.degrade("a sync of the counts failed")));
  }

  charge(charges: readonly CounterCharge[], nowMs: number = this.clock.now().getTime()): ChargeOutcome | Promise<ChargeOutcome> {
    return this.counters.charge(charges, nowMs);
  }

  async acceptOnce(claim: OnceClaim, nowMs: number): Promise<boolean> {
    try {
      return await acceptOnceInDatabase(claim, nowMs);
    } catch {
      recordSharedStateFallback(this.name, "once");
      this.tracker.degrade("a once-key could not be written");
      return this.fallback.acceptOnce(claim, nowMs);
    }
  }

  async acceptOnceAndCharge(claim: OnceClaim, charges: readonly CounterCharge[], nowMs: number): Promise<OnceAndChargeOutcome> {
    if (!(await this.acceptOnce(claim, nowMs))) return { accepted: false };
    return { accepted: true, refused: await this.counters.charge(charges, nowMs) };
  }

  condition() {
    return this.tracker.condition;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    await this.counters.flush().catch(() => undefined);
  }

  /** Sends the pending counts now (tests). */
  flush(): Promise<void> {
    return this.counters.flush();
  }
}
