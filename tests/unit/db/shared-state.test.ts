// The shared state's stores (issue 50, lib/shared-state), each as two "instances" (two store objects) on one shared
// backend: the postgres store on this run's database (its SQL is written once for both providers), the redis store
// on a real redis-server started here, killed and paused mid-test.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdmissionLane } from "@/lib/admission/lane";
import { runHoldingSlot, Slot } from "@/lib/admission/slot";
import { ManualClock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { query } from "@/lib/db";
import { createLogger, setLogger } from "@/lib/observability/log";
import { serviceMetrics } from "@/lib/observability/metrics";
import { MemoryStore } from "@/lib/shared-state/memory";
import { acceptOnceInDatabase, counterRowKey, deleteEndedSharedState, PostgresStore, SYNC_INTERVAL_MS, unsyncedCap } from "@/lib/shared-state/postgres";
import { PROBE_INTERVAL_MS, RedisStore } from "@/lib/shared-state/redis";
import { acceptOnce, chargeCounters, type ChargeOutcome, type CounterCharge, type MaybePromise, type OnceClaim } from "@/lib/shared-state";
import { startRedis, type TestRedis } from "../../support/redis";

const lines: string[] = [];
beforeAll(() => setLogger(createLogger({ write: (line: string) => void lines.push(line) }, "info")));
afterAll(() => setLogger(undefined));

let unique = 0;
const key = (): string => `k${Date.now()}-${++unique}`;
const charge = (scope: string, k: string, cost: number, limit: number): CounterCharge => ({ scope, key: k, cost, limit, windowSeconds: 60 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to `ms`) until `condition` holds. */
async function until(condition: () => boolean, ms = 5 * PROBE_INTERVAL_MS): Promise<void> {
  for (let waited = 0; !condition() && waited < ms; waited += 50) await sleep(50);
}

function stateLines(): { store: string; condition: string }[] {
  return lines.map((line) => JSON.parse(line) as { type?: string; store: string; condition: string }).filter((entry) => entry.type === "shared_state");
}

async function gauge(store: string): Promise<number | undefined> {
  const metric = (await serviceMetrics().sharedStateDegraded.get()).values.find((value) => value.labels.store === store);
  return metric?.value;
}

describe("the postgres store", () => {
  it("accepts a once-key once for every instance until its time, then again", async () => {
    const clock = new ManualClock();
    const [a, b] = [new PostgresStore(clock), new PostgresStore(clock)];
    const now = clock.now().getTime();
    const claim: OnceClaim = { scope: "test-nonce", key: key(), untilEpochSeconds: Math.floor(now / 1000) + 60 };
    expect(await a.acceptOnce(claim, now)).toBe(true);
    expect(await b.acceptOnce(claim, now)).toBe(false);
    expect(await a.acceptOnce(claim, now)).toBe(false);
    expect(await b.acceptOnceAndCharge(claim, [charge("test", key(), 1, 5)], now)).toEqual({ accepted: false });
    clock.advance(61);
    const later = clock.now().getTime();
    expect(await b.acceptOnce({ ...claim, untilEpochSeconds: Math.floor(later / 1000) + 60 }, later)).toBe(true);
    // The janitor removes what has ended, and nothing else.
    clock.advance(61);
    expect(await deleteEndedSharedState(clock.now(), 1000)).toBeGreaterThanOrEqual(1);
    expect(await acceptOnceInDatabase({ ...claim, untilEpochSeconds: Math.floor(clock.now().getTime() / 1000) + 60 }, clock.now().getTime())).toBe(true);
    expect(await deleteEndedSharedState(clock.now(), 1000)).toBe(0);
  });

  it("never passes an allowance on one instance; counts sync to the database in batches", async () => {
    const clock = new ManualClock();
    const store = new PostgresStore(clock);
    const k = key();
    // 25 requests at once against an allowance of 20: past a tenth unsynced, each waits for a sync and is decided then.
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => store.charge([charge("test", k, 1, 20)])));
    expect(outcomes.filter((outcome) => outcome === null)).toHaveLength(20);
    expect(outcomes.filter((outcome) => outcome !== null)[0]).toEqual({ retryAfterSeconds: 60 });
    await store.flush();
    const [row] = await query<{ count: number }>(`SELECT "count" FROM "SharedState" WHERE "key" = $1`, [counterRowKey("test", k)]);
    expect(Number(row!.count)).toBe(20);
  });

  it("bounds a fleet's overshoot by N × a tenth of the allowance, then counts the fleet together", async () => {
    const clock = new ManualClock();
    const instances = [new PostgresStore(clock), new PostgresStore(clock), new PostgresStore(clock)];
    const k = key();
    const limit = 30;
    // Each instance takes its requests as fast as they come; they sync every SYNC_INTERVAL_MS.
    const served = await Promise.all(
      instances.map(async (store) => {
        let count = 0;
        for (let i = 0; i < 40; i++) if ((await store.charge([charge("test", k, 1, limit)])) === null) count += 1;
        return count;
      }),
    );
    const total = served.reduce((sum, count) => sum + count, 0);
    expect(total).toBeGreaterThanOrEqual(limit);
    expect(total).toBeLessThanOrEqual(limit + instances.length * unsyncedCap(limit));
    await Promise.all(instances.map((store) => store.flush()));
    // Synced: every instance knows the window is full.
    for (const store of instances) expect(await store.charge([charge("test", k, 1, limit)])).toMatchObject({ retryAfterSeconds: expect.any(Number) });
    const [row] = await query<{ count: number }>(`SELECT "count" FROM "SharedState" WHERE "key" = $1`, [counterRowKey("test", k)]);
    expect(Number(row!.count)).toBe(total);
  });

  it("charges several counters all or none, and a new window starts when the old one ends", async () => {
    const clock = new ManualClock();
    const store = new PostgresStore(clock);
    const [surface, lookups] = [key(), key()];
    expect(await store.charge([charge("mcp", surface, 1, 10), charge("lookups", lookups, 2, 2)])).toBeNull();
    expect(await store.charge([charge("mcp", surface, 1, 10), charge("lookups", lookups, 1, 2)])).toEqual({ retryAfterSeconds: 60 });
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await store.charge([charge("mcp", surface, 9, 10)])).toBeNull();
    expect(await store.charge([charge("mcp", surface, 1, 10)])).not.toBeNull();
    clock.advance(60);
    expect(await store.charge([charge("lookups", lookups, 2, 2)])).toBeNull();
  });
});

describe("every store counts in the time of the charges it is given (a request's injected clock)", () => {
  it("a window ends when the charging clock says, not the store's own", async () => {
    // The stores are made with the system clock, as the server makes its one; the requests bring a manual one.
    for (const store of [new MemoryStore(), new PostgresStore()]) {
      const requestClock = new ManualClock(Date.UTC(2026, 4, 1, 8, 0, 0));
      const k = key();
      expect(await store.charge([charge("test", k, 2, 2)], requestClock.now().getTime()), store.name).toBeNull();
      expect(await store.charge([charge("test", k, 1, 2)], requestClock.now().getTime()), store.name).toEqual({ retryAfterSeconds: 60 });
      requestClock.advance(60);
      expect(await store.charge([charge("test", k, 2, 2)], requestClock.now().getTime()), store.name).toBeNull();
      if (store instanceof PostgresStore) await store.stop();
    }
  });
});

describe("the configured store, through lib/shared-state's entry (memory on SQLite, postgres on PostgreSQL)", () => {
  it("takes any key once, full-range strings included, and never mistakes two keys for one (property)", async () => {
    const until = Math.floor(Date.now() / 1000) + 60;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.string({ unit: "binary", maxLength: 300 }), { minLength: 2, maxLength: 4 }), async (keys) => {
        const scope = `prop-${++unique}`;
        for (const k of keys) expect(await acceptOnce(scope, k, until)).toBe(true);
        for (const k of keys) expect(await acceptOnce(scope, k, until)).toBe(false);
        const outcome = chargeCounters(keys.map((k) => charge(scope, k, 1, 1)));
        expect(outcome instanceof Promise ? await outcome : outcome).toBeNull();
      }),
      { numRuns: 60 },
    );
  });

  it("gives the request's admission slot back while a remote store answers, and holds it again for the result", async () => {
    const lane = new AdmissionLane({ inFlight: 1, queue: 4, maxWaitMs: 1000 });
    lane.enter(
      () => undefined,
      () => undefined,
      () => false,
    );
    const slot = new Slot(lane, "");
    let slotsHeldDuringTheWait = -1;
    const accepted = await runHoldingSlot(slot, () => {
      const answer = acceptOnce(`slot-${++unique}`, key(), Math.floor(Date.now() / 1000) + 60);
      slotsHeldDuringTheWait = lane.inFlight;
      return answer;
    });
    expect(accepted).toBe(true);
    // PostgreSQL's once-key is a statement: the slot runs other work meanwhile. The memory store answers at once.
    expect(slotsHeldDuringTheWait).toBe(getConfig().sharedState.store === "memory" ? 1 : 0);
    expect(lane.inFlight).toBe(1);
    slot.release();
    expect(lane.inFlight + lane.suspended).toBe(0);
  });
});

describe("the redis store", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  const storeFor = (fallbackOnce = new MemoryStore()) =>
    new RedisStore({ url: redis.url, deadlineMs: 50, fallbackOnce: (claim, nowMs) => fallbackOnce.acceptOnce(claim, nowMs), fallbackOnceName: "memory" });

  it("counts for the whole fleet, all or none, with the full window's time to live as Retry-After", async () => {
    const [a, b] = [storeFor(), storeFor()];
    await Promise.all([a.start(), b.start()]);
    try {
      const [surface, lookups] = [key(), key()];
      const now = Date.now();
      expect(await a.charge([charge("mcp", surface, 1, 10), charge("lookups", lookups, 1, 2)], now)).toBeNull();
      expect(await b.charge([charge("mcp", surface, 1, 10), charge("lookups", lookups, 1, 2)], now)).toBeNull();
      const refused = await a.charge([charge("mcp", surface, 1, 10), charge("lookups", lookups, 1, 2)], now);
      expect(refused).toEqual({ retryAfterSeconds: 60 });
      // Nothing of the refused request was counted: 8 more mcp units fit, the 9th does not.
      expect(await b.charge([charge("mcp", surface, 8, 10)], now)).toBeNull();
      expect(await a.charge([charge("mcp", surface, 1, 10)], now)).not.toBeNull();
      expect(await redis.command("PTTL", `{agent-gate}:c:mcp:${surface}`)).toMatch(/^:(59\d\d\d|60000)$/);
      // Requests of one event-loop iteration share one call and are decided in order.
      const burst = await Promise.all(Array.from({ length: 12 }, () => a.charge([charge("burst", surface, 1, 5)], now)));
      expect(burst.map((outcome) => outcome === null)).toEqual([true, true, true, true, true, false, false, false, false, false, false, false]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("sends one call at a time: requests arriving while it is in flight ride together in the next, decided in their order, all or none each", async () => {
    // A deadline far above Redis's pause below: this is about how requests group, not about late calls (next test).
    const store = new RedisStore({ url: redis.url, deadlineMs: 2000, fallbackOnce: () => true, fallbackOnceName: "memory" });
    await store.start();
    try {
      const [k, other] = [key(), key()];
      const now = Date.now();
      expect(await store.charge([charge("burst", other, 1, 100)], now)).toBeNull();
      await redis.command("CONFIG", "RESETSTAT");
      // Redis holds every command for 300 ms: the first call stays in flight while six more requests arrive, each in a
      // later turn of the event loop. The fourth of them also charges `other`; k is full by then, so it is refused as
      // a whole and `other` is not counted.
      await redis.command("CLIENT", "PAUSE", "300", "ALL");
      const answers: MaybePromise<ChargeOutcome>[] = [store.charge([charge("burst", k, 1, 3)], now)];
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        answers.push(store.charge(i === 2 ? [charge("burst", other, 1, 100), charge("burst", k, 1, 3)] : [charge("burst", k, 1, 3)], now));
      }
      const outcomes = await Promise.all(answers);
      expect(outcomes.map((outcome) => outcome === null)).toEqual([true, true, true, false, false, false, false]);
      expect(await redis.command("GET", `{agent-gate}:c:burst:${other}`)).toBe("$1\r\n1");
      // Two script calls for seven requests in seven turns of the loop: the first, and the six that waited for it.
      expect(await redis.command("INFO", "commandstats")).toMatch(/cmdstat_evalsha:calls=2,/);
      expect(store.condition()).toBe("ok");
    } finally {
      await store.stop();
    }
  });

  it("holds every request to the deadline counted from its arrival, one that waited for the call in flight too", async () => {
    const deadlineMs = 300;
    const store = new RedisStore({ url: redis.url, deadlineMs, fallbackOnce: () => true, fallbackOnceName: "memory" });
    await store.start();
    try {
      const now = Date.now();
      expect(await store.charge([charge("ask", key(), 1, 5)], now)).toBeNull();
      await redis.command("CLIENT", "PAUSE", "1200", "ALL");
      const timed = async (k: string): Promise<{ outcome: ChargeOutcome; waited: number }> => {
        const at = performance.now();
        const outcome = await store.charge([charge("ask", k, 1, 5)], now);
        return { outcome, waited: performance.now() - at };
      };
      const first = timed(key());
      await sleep(20);
      // Arrives while the first call is in flight: it is sent when that call has missed its deadline, with what is left
      // of its own (not a whole deadline more).
      const second = timed(key());
      const [a, b] = await Promise.all([first, second]);
      expect([a.outcome, b.outcome]).toEqual([null, null]);
      // Redis answers after 1,200 ms: a bound well below it, with room for a busy machine's late timers.
      expect(a.waited).toBeLessThan(deadlineMs + 400);
      expect(b.waited).toBeLessThan(deadlineMs + 400);
      // Two late calls in a row do not make the store degraded (three do).
      expect(store.condition()).toBe("ok");
      // Redis answers again once the pause ends; the store uses it again.
      expect(await redis.command("PING")).toBe("+PONG");
      expect(await store.charge([charge("ask", key(), 1, 5)], Date.now())).toBeNull();
      expect(store.condition()).toBe("ok");
    } finally {
      await store.stop();
    }
  });

  it("connects on first use where nothing started it (a serverless instance): the first request waits for the connection", async () => {
    // A deadline far above a connection's time on a busy machine (CI's cores are all busy): this is about the first
    // request waiting for the connection and then going to Redis, not about a connection slower than the deadline.
    const store = new RedisStore({ url: redis.url, deadlineMs: 2000, fallbackOnce: () => true, fallbackOnceName: "memory" });
    try {
      const k = key();
      expect(await store.charge([charge("ask", k, 1, 5)], Date.now())).toBeNull();
      expect(await redis.command("GET", `{agent-gate}:c:ask:${k}`)).toBe("$1\r\n1");
      expect(store.condition()).toBe("ok");
    } finally {
      await store.stop();
    }
  });

  it("a first request whose connection outlasts its deadline is answered by the fallback, and still counted in Redis once", async () => {
    // Redis holds every command (the connection's handshake too) for 1 s: far past the first request's 50 ms.
    await redis.command("CLIENT", "PAUSE", "1000", "ALL");
    const store = storeFor();
    try {
      const k = key();
      const started = performance.now();
      expect(await store.charge([charge("ask", k, 1, 5)], Date.now())).toBeNull();
      expect(performance.now() - started).toBeLessThan(800);
      // The call went on: Redis carries it out when the pause ends, so the fleet's count has the request, once.
      await sleep(1200 - (performance.now() - started));
      expect(await redis.command("GET", `{agent-gate}:c:ask:${k}`)).toBe("$1\r\n1");
      // One late call does not make the store degraded; the next request goes to Redis.
      expect(store.condition()).toBe("ok");
      expect(await store.charge([charge("ask", k, 1, 5)], Date.now())).toBeNull();
      expect(await redis.command("GET", `{agent-gate}:c:ask:${k}`)).toBe("$1\r\n2");
    } finally {
      await store.stop();
    }
  });

  it("accepts a once-key once (SET NX PX); the combined call charges only when the key was new", async () => {
    const [a, b] = [storeFor(), storeFor()];
    await Promise.all([a.start(), b.start()]);
    try {
      const now = Date.now();
      const claim: OnceClaim = { scope: "test-nonce", key: key(), untilEpochSeconds: Math.floor(now / 1000) + 30 };
      const counter = key();
      expect(await a.acceptOnceAndCharge(claim, [charge("ask", counter, 1, 1)], now)).toEqual({ accepted: true, refused: null });
      expect(await b.acceptOnceAndCharge(claim, [charge("ask", counter, 1, 1)], now)).toEqual({ accepted: false });
      expect(await b.acceptOnce(claim, now)).toBe(false);
      expect(Number((await redis.command("PTTL", `{agent-gate}:o:test-nonce:${claim.key}`)).slice(1))).toBeGreaterThan(25_000);
      // The replay charged nothing: the counter holds the first request's unit only.
      expect(await redis.command("GET", `{agent-gate}:c:ask:${counter}`)).toBe("$1\r\n1");
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("answers from the fallback when Redis dies mid-request or stalls past the deadline: degraded once, then back without a restart", async () => {
    lines.length = 0;
    const onceFallback = new MemoryStore();
    const store = storeFor(onceFallback);
    await store.start();
    try {
      const k = key();
      const now = Date.now();
      expect(await store.charge([charge("ask", k, 1, 3)], now)).toBeNull();
      // Killed while requests are on their way: each is answered, from this instance's memory.
      const inFlight = Promise.all(Array.from({ length: 5 }, () => store.charge([charge("ask", k, 1, 3)], now)));
      await redis.kill();
      const answered = await inFlight;
      expect(answered.every((outcome) => outcome === null || outcome.retryAfterSeconds > 0)).toBe(true);
      await until(() => store.condition() === "degraded", 2000);
      expect(store.condition()).toBe("degraded");
      expect(await gauge("redis")).toBe(1);
      // Degraded: decided at once from memory (3 units per window here), once-keys in the fallback.
      const claim: OnceClaim = { scope: "test-nonce", key: key(), untilEpochSeconds: Math.floor(now / 1000) + 60 };
      const other = key();
      const fallen = [];
      for (let i = 0; i < 4; i++) fallen.push(await store.charge([charge("ask", other, 1, 3)], Date.now()));
      expect(fallen.map((outcome) => outcome === null)).toEqual([true, true, true, false]);
      expect(await store.acceptOnce(claim, Date.now())).toBe(true);
      expect(await store.acceptOnce(claim, Date.now())).toBe(false);
      // Back: used again within a probe interval, and what the fallback counted and accepted is in Redis now.
      await redis.restart();
      await until(() => store.condition() === "ok");
      expect(store.condition()).toBe("ok");
      expect(await gauge("redis")).toBe(0);
      expect(await redis.command("GET", `{agent-gate}:c:ask:${other}`)).toBe("$1\r\n3");
      expect(await redis.command("EXISTS", `{agent-gate}:o:test-nonce:${claim.key}`)).toBe(":1");
      expect(await store.charge([charge("ask", other, 1, 3)], Date.now())).toMatchObject({ retryAfterSeconds: expect.any(Number) });
      // Stalled (CLIENT PAUSE): each call waits its deadline at most, then the fallback answers; three in a row degrade.
      const paused = key();
      await redis.command("CLIENT", "PAUSE", "1500", "ALL");
      const started = performance.now();
      for (let i = 0; i < 3; i++) expect(await store.charge([charge("ask", paused, 1, 3)], Date.now())).toBeNull();
      // Well below the 1,500 ms pause, with room for a busy machine's late timers.
      expect(performance.now() - started).toBeLessThan(3 * 50 + 750);
      expect(store.condition()).toBe("degraded");
      await until(() => store.condition() === "ok");
      expect(store.condition()).toBe("ok");
      // Redis carried out the three late calls once the pause ended: they are counted there once, not written back again.
      expect(await redis.command("GET", `{agent-gate}:c:ask:${paused}`)).toBe("$1\r\n3");
      // One warn line per change of state, never one per request.
      expect(stateLines().map((entry) => entry.condition)).toEqual(["degraded", "ok", "degraded", "ok"]);
      for (const line of lines.filter((l) => l.includes('"type":"shared_state"'))) expect(line).toContain('"level":"warn"');
    } finally {
      await store.stop();
    }
  });
});
