// The redis store (REDIS_URL; SHARED_STATE=redis): counters and once-keys for the whole fleet in Redis, through
// node-redis (@redis/client, the official client; `rediss://` is TLS).
//
// Group commit: one round of script calls in flight at a time, one call (CHARGE_SCRIPT) for up to 256 requests; the
// requests that arrive while a round is in flight ride together in the next, sent as soon as it is answered. Idle, a
// request goes at the end of its event-loop iteration (no added wait); under load, rounds grow with the load, and
// each round trip (a write that wakes Redis, its reply that wakes this process) is shared by more requests. The
// script decides its requests in order, each atomically: its once-key by SET NX PX, then, only when that key was new,
// its counters all or none (GET of each; INCRBY and PEXPIRE of each when all have room; the refusal's wait is the
// longest PTTL of the full ones). Not rate-limiter-flexible: its limiters consume one key each, and "every budget of
// this request, or none" (an MCP lookup spends the surface's budget and the lookups budget) would be a consume
// followed by a reward on refusal, where a concurrent request can see the half-spent state; one script is atomic. Its
// fixed windows start with their first unit, as this service's memory windows always have, and Retry-After is the
// window's PTTL.
//
// Faults never stop a request. Each request has a deadline (SHARED_STATE_DEADLINE_MS, tens of milliseconds) from its
// arrival: its call gets what is left of it after the wait for the round before. A request whose call failed or
// missed it is decided by this instance's fallback: counters in its memory, once-keys in PostgreSQL (or memory with
// SQLite). Redis unreachable, or several calls in a row past their deadline, make the store degraded (one warn line,
// a gauge, /readyz `shared_state: degraded`): requests then go straight to the fallback while a probe pings Redis
// every second; when it answers, what the fallback counted and accepted meanwhile is written to Redis (so a nonce
// accepted during the outage stays refused; a late call Redis carried out after all is not written twice), and Redis
// is used again, no restart.
import { createClient } from "@redis/client";
import { logger } from "@/lib/observability/log";
import { recordSharedStateFallback } from "@/lib/observability/metrics";
import { ConditionTracker } from "./condition";
import { MemoryCounters } from "./memory";
import type { ChargeOutcome, CounterCharge, MaybePromise, OnceAndChargeOutcome, OnceClaim, SharedStateStore } from "./types";

/**
 * Every key in one hash slot (a Redis Cluster, or a provider's proxy in front of one, accepts a script only over
 * keys of one slot), and apart from anything else the database holds.
 */
export const KEY_PREFIX = "{agent-gate}:";
const counterKey = (scope: string, key: string): string => `${KEY_PREFIX}c:${scope}:${key}`;
const onceKey = (scope: string, key: string): string => `${KEY_PREFIX}o:${scope}:${key}`;

/**
 * ARGV[1]: 1 = decide and count; 2 = add what a fallback counted and accepted (every once-key set if absent, every
 * counter increased, no limit). Then per request: its once-key's time to live in ms (0: none), its number of
 * counters n, and n × (cost, limit, window ms). KEYS: the request's once-key (when it has one), then its counters'.
 * Answers one integer per request: 0 counted, -1 the once-key was held (nothing counted), > 0 refused: ms to wait.
 */
export const CHARGE_SCRIPT = `
local mode = tonumber(ARGV[1])
local out = {}
local k, a, r = 1, 2, 0
while a <= #ARGV do
  r = r + 1
  local onceTtl = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  local verdict = 0
  if onceTtl > 0 then
    if not redis.call('SET', KEYS[k], '1', 'NX', 'PX', onceTtl) then verdict = -1 end
    k = k + 1
  end
  if verdict == 0 and mode == 1 then
    for i = 0, n - 1 do
      local cost = tonumber(ARGV[a + 3 * i])
      if cost > 0 and tonumber(redis.call('GET', KEYS[k + i]) or '0') + cost > tonumber(ARGV[a + 3 * i + 1]) then
        local ttl = redis.call('PTTL', KEYS[k + i])
        if ttl < 1 then ttl = tonumber(ARGV[a + 3 * i + 2]) end
        if ttl > verdict then verdict = ttl end
      end
    end
  end
  if verdict == 0 then
    for i = 0, n - 1 do
      local cost = tonumber(ARGV[a + 3 * i])
      if cost > 0 and redis.call('INCRBY', KEYS[k + i], cost) == cost then redis.call('PEXPIRE', KEYS[k + i], ARGV[a + 3 * i + 2]) end
    end
  end
  out[r] = verdict
  k = k + n
  a = a + 3 * n
end
return out`;

/** Requests decided by one script call at most (a larger round makes several calls, sent together). */
const REQUESTS_PER_CALL = 256;
/** Calls in a row past their deadline that make the store degraded (one late call is answered by the fallback alone). */
const LATE_CALLS_TO_DEGRADE = 3;
/** While degraded, how often Redis is asked whether it answers again. */
export const PROBE_INTERVAL_MS = 1000;
/** What the fallback counted and accepted while degraded, kept to be written back (older entries go first). */
const MAX_JOURNAL = 10_000;
/** How long the start waits for a first connection. */
const START_WAIT_MS = 2000;

interface Request {
  once: OnceClaim | undefined;
  charges: readonly CounterCharge[];
  nowMs: number;
  resolve(verdict: number): void;
}

export interface RedisStoreOptions {
  url: string;
  deadlineMs: number;
  /** Once-keys while Redis does not answer: PostgreSQL's table, or memory with SQLite. */
  fallbackOnce(claim: OnceClaim, nowMs: number): MaybePromise<boolean>;
  /** Where they go, for the warn line. */
  fallbackOnceName: "PostgreSQL" | "memory";
  now?: () => number;
}

/** What the fallback counted or accepted, to be written to Redis when it is back. */
interface JournalEntry {
  charge?: CounterCharge;
  once?: OnceClaim;
  nowMs: number;
}

class Deadline extends Error {}

/** `work`, or a Deadline rejection once `ms` have passed and a further turn of the loop has not brought its answer. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      // A timer that fired late (a busy loop) may precede the reply already waiting on the socket: give the poll phase
      // one turn before calling the call late.
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new Deadline(`no answer within ${ms} ms`));
      });
    }, ms);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** A verdict of the script as a charge's outcome: > 0 is a refusal, in ms to wait. */
const refusalOf = (verdict: number): ChargeOutcome => (verdict > 0 ? { retryAfterSeconds: Math.max(1, Math.ceil(verdict / 1000)) } : null);

const describe = (error: unknown): string => (error instanceof Deadline ? error.message : error instanceof Error ? error.message.slice(0, 200) : "unknown error");

export class RedisStore implements SharedStateStore {
  readonly name = "redis" as const;
  readonly counters = new MemoryCounters();
  private readonly tracker: ConditionTracker;
  private readonly client;
  private readonly now: () => number;
  /** Requests that arrived since the round in flight was sent: they ride in the next round. */
  private waiting: Request[] = [];
  /** When the oldest waiting request arrived (performance.now()). */
  private waitingSince = 0;
  private roundScheduled = false;
  private roundInFlight = false;
  private sha: string | undefined;
  private lateCalls = 0;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;
  private journal: JournalEntry[] = [];
  private stopped = false;
  /** The first connection, opened when the store is made (on Vercel with the first request; under npm start at start). */
  private readonly connected: Promise<void>;
  private everReady = false;

  constructor(private readonly options: RedisStoreOptions) {
    this.now = options.now ?? Date.now;
    this.tracker = new ConditionTracker("redis", `its own counts in memory and once-keys in ${options.fallbackOnceName}`);
    this.client = createClient({
      url: options.url,
      // A command while the connection is down fails at once (the fallback answers) instead of waiting in a queue.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: Math.max(1000, options.deadlineMs * 10),
        // Reconnect forever, backing off to a second: recovery needs no restart.
        reconnectStrategy: (retries: number) => Math.min(1000, 50 * 2 ** Math.min(retries, 5)),
      },
    });
    // node-redis emits every connection error (each failed reconnection too); the condition says what matters, once
    // per change, and the probe brings it back.
    this.client.on("error", (error: unknown) => {
      if (this.stopped) return;
      this.tracker.degrade(describe(error));
      this.startProbe();
    });
    this.connected = this.client.connect().then(
      () => void (this.everReady = true),
      (error: unknown) => {
        this.tracker.degrade(`cannot connect: ${describe(error)}`);
        this.startProbe();
      },
    );
  }

  charge(charges: readonly CounterCharge[], nowMs: number): MaybePromise<ChargeOutcome> {
    if (this.tracker.condition === "degraded") return this.fallbackCharge(charges, nowMs);
    return new Promise((resolve) => this.enqueue({ once: undefined, charges, nowMs, resolve: (verdict) => resolve(refusalOf(verdict)) }));
  }

  acceptOnce(claim: OnceClaim, nowMs: number): MaybePromise<boolean> {
    if (this.tracker.condition === "degraded") return this.fallbackOnce(claim, nowMs);
    return new Promise((resolve) => this.enqueue({ once: claim, charges: [], nowMs, resolve: (verdict) => resolve(verdict === 0) }));
  }

  acceptOnceAndCharge(claim: OnceClaim, charges: readonly CounterCharge[], nowMs: number): MaybePromise<OnceAndChargeOutcome> {
    if (this.tracker.condition === "degraded") return this.fallbackBoth(claim, charges, nowMs);
    return new Promise((resolve) =>
      this.enqueue({ once: claim, charges, nowMs, resolve: (verdict) => resolve(verdict < 0 ? { accepted: false } : { accepted: true, refused: refusalOf(verdict) }) }),
    );
  }

  condition() {
    return this.tracker.condition;
  }

  async start(): Promise<void> {
    await within(this.connected, START_WAIT_MS).catch(() => {
      this.tracker.degrade(`no connection within ${START_WAIT_MS} ms`);
      this.startProbe();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.probe) clearInterval(this.probe);
    await this.client.close().catch(() => undefined);
  }

  // ---------------------------------------------------------------- group commit: one round in flight, the next gathering

  private enqueue(request: Request): void {
    if (this.waiting.length === 0) this.waitingSince = performance.now();
    this.waiting.push(request);
    this.scheduleRound();
  }

  /**
   * Sends the waiting requests after this iteration's poll phase (every request it read rides along), unless a round
   * is in flight: then they go when it ends. That adds no wait: on the client's one connection Redis answers in order,
   * so a call sent now would be answered after the one in flight anyway.
   */
  private scheduleRound(): void {
    if (this.roundScheduled || this.roundInFlight || this.waiting.length === 0) return;
    this.roundScheduled = true;
    setImmediate(this.sendRound);
  }

  private readonly sendRound = (): void => {
    this.roundScheduled = false;
    const requests = this.waiting;
    this.waiting = [];
    // Each request's deadline counts from its arrival: the time the oldest waited for the round before is taken off.
    const deadlineMs = Math.max(0, this.waitingSince + this.options.deadlineMs - performance.now());
    const calls: Promise<void>[] = [];
    for (let start = 0; start < requests.length; start += REQUESTS_PER_CALL) calls.push(this.decide(requests.slice(start, start + REQUESTS_PER_CALL), deadlineMs));
    this.roundInFlight = true;
    void Promise.all(calls).then(this.endRound);
  };

  private readonly endRound = (): void => {
    this.roundInFlight = false;
    this.scheduleRound();
  };

  private async decide(requests: Request[], deadlineMs: number): Promise<void> {
    // The first requests of a process wait for its first connection, within the same deadline.
    const run = this.everReady ? this.runScript(1, requests) : this.connected.then(() => this.runScript(1, requests));
    let verdicts: number[];
    try {
      verdicts = await within(run, deadlineMs);
      this.lateCalls = 0;
    } catch (error) {
      this.noteFailure(error);
      const keep = error instanceof Deadline ? this.keepIfFails(run) : this.remember;
      for (const request of requests) void this.answerFromFallback(request, keep);
      return;
    }
    requests.forEach((request, i) => request.resolve(Number(verdicts[i] ?? 0)));
  }

  /**
   * Where a late call's fallback entries go. A call past its deadline is still carried out when Redis answers it later
   * (the first connection was slow, Redis was paused): what it counted and accepted is in Redis then, and writing the
   * fallback's entries back too would count those requests twice. They are kept for the write-back only if the call
   * fails. Commands on one connection are answered in order, so a late call has settled before a probe on the same
   * connection succeeds; one on a connection that closed is rejected.
   */
  private keepIfFails(run: Promise<unknown>): (entry: JournalEntry) => void {
    let held: JournalEntry[] | null = [];
    let failed = false;
    run.then(
      () => void (held = null),
      () => {
        failed = true;
        for (const entry of held ?? []) this.remember(entry);
        held = null;
      },
    );
    return (entry) => {
      if (failed) this.remember(entry);
      else held?.push(entry);
    };
  }

  private async runScript(mode: 1 | 2, requests: readonly { once?: OnceClaim; charges: readonly CounterCharge[]; nowMs: number }[]): Promise<number[]> {
    const keys: string[] = [];
    const args: string[] = [String(mode)];
    for (const request of requests) {
      const ttl = request.once ? Math.max(1, request.once.untilEpochSeconds * 1000 - request.nowMs) : 0;
      if (request.once) keys.push(onceKey(request.once.scope, request.once.key));
      args.push(String(ttl), String(request.charges.length));
      for (const charge of request.charges) {
        keys.push(counterKey(charge.scope, charge.key));
        args.push(String(charge.cost), String(charge.limit), String(charge.windowSeconds * 1000));
      }
    }
    const options = { keys, arguments: args };
    this.sha ??= await this.client.scriptLoad(CHARGE_SCRIPT);
    try {
      return (await this.client.evalSha(this.sha, options)) as number[];
    } catch (error) {
      // After a restart (or SCRIPT FLUSH) the server no longer has it: load it once more.
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      this.sha = await this.client.scriptLoad(CHARGE_SCRIPT);
      return (await this.client.evalSha(this.sha, options)) as number[];
    }
  }

  private noteFailure(error: unknown): void {
    if (error instanceof Deadline) {
      this.lateCalls += 1;
      if (this.lateCalls < LATE_CALLS_TO_DEGRADE) return;
    }
    this.tracker.degrade(error instanceof Deadline ? `${LATE_CALLS_TO_DEGRADE} calls in a row got no answer within ${this.options.deadlineMs} ms` : describe(error));
    this.startProbe();
  }

  // ---------------------------------------------------------------- the fallback

  private async answerFromFallback(request: Request, keep: (entry: JournalEntry) => void): Promise<void> {
    if (request.once && !(await this.fallbackOnce(request.once, request.nowMs, keep))) return request.resolve(-1);
    const refused = this.fallbackCharge(request.charges, request.nowMs, keep);
    request.resolve(refused ? refused.retryAfterSeconds * 1000 : 0);
  }

  private fallbackCharge(charges: readonly CounterCharge[], nowMs: number, keep = this.remember): ChargeOutcome {
    recordSharedStateFallback(this.name, "charge");
    const refused = this.counters.charge(charges, nowMs);
    if (!refused) for (const charge of charges) if (charge.cost > 0) keep({ charge, nowMs });
    return refused;
  }

  private async fallbackOnce(claim: OnceClaim, nowMs: number, keep = this.remember): Promise<boolean> {
    recordSharedStateFallback(this.name, "once");
    let accepted: boolean;
    try {
      accepted = await this.options.fallbackOnce(claim, nowMs);
    } catch {
      // The database is down too: this instance's memory still refuses its own replays.
      accepted = this.counters.acceptOnce(claim, nowMs);
    }
    if (accepted) keep({ once: claim, nowMs });
    return accepted;
  }

  private async fallbackBoth(claim: OnceClaim, charges: readonly CounterCharge[], nowMs: number): Promise<OnceAndChargeOutcome> {
    if (!(await this.fallbackOnce(claim, nowMs))) return { accepted: false };
    return { accepted: true, refused: this.fallbackCharge(charges, nowMs) };
  }

  /** Keeps an entry for the write-back. */
  private readonly remember = (entry: JournalEntry): void => {
    if (this.journal.length >= MAX_JOURNAL) this.journal.shift();
    this.journal.push(entry);
  };

  // ---------------------------------------------------------------- recovery

  private startProbe(): void {
    if (this.probe !== undefined || this.stopped) return;
    this.probe = setInterval(() => void this.tryRecover(), PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private async tryRecover(): Promise<void> {
    if (this.probing || !this.client.isReady) return;
    this.probing = true;
    try {
      // The script itself, over no request: a Redis that answers PING but holds writes (CLIENT PAUSE WRITE) is not back.
      await within(this.runScript(1, []), this.options.deadlineMs);
      await this.writeBackJournal();
      if (this.probe) clearInterval(this.probe);
      this.probe = undefined;
      this.lateCalls = 0;
      this.tracker.recover();
    } catch (error) {
      logger().debug({ type: "shared_state", store: this.name, reason: describe(error) }, "Redis does not answer yet");
    } finally {
      this.probing = false;
    }
  }

  /** What the fallback counted and accepted, into Redis (what has ended is left out): nothing written is lost. */
  private async writeBackJournal(): Promise<void> {
    const nowMs = this.now();
    const live = this.journal.filter((entry) =>
      entry.once ? entry.once.untilEpochSeconds * 1000 > nowMs : entry.charge !== undefined && entry.nowMs + entry.charge.windowSeconds * 1000 > nowMs,
    );
    for (let start = 0; start < live.length; start += REQUESTS_PER_CALL) {
      const slice = live.slice(start, start + REQUESTS_PER_CALL).map((entry) => ({ once: entry.once, charges: entry.charge ? [entry.charge] : [], nowMs }));
      await within(this.runScript(2, slice), this.options.deadlineMs * 4);
    }
    this.journal = [];
  }
}
