// What one budget charge costs in each shared-state store (issue 50), in-process, without HTTP, and what decided the
// postgres store's design: a throwaway PostgreSQL database (migrated) and a redis-server of its own, 64 charges in
// flight at a time (as the bench's 64 connections), each on its own key, alternating rounds:
//
//   memory                 the memory store (a Map lookup, answered synchronously)
//   postgres (batches)     the postgres store: decided here, synced every 250 ms in one statement
//   postgres (statement)   the design it replaced: one INSERT … ON CONFLICT … RETURNING per charge, as the database's
//                          own budgets are counted (lib/rate-limit/index.ts)
//   redis                  the redis store: one Lua script per event-loop iteration for every charge of it
//
// Per charge: wall time (64 in flight), and this process's CPU. PostgreSQL's and Redis's own CPU is not in the second
// figure; on a shared 2-core machine it is in the first.
//
// Usage: npx tsx bench/micro-shared-state.ts [--postgres postgresql://postgres:postgres@127.0.0.1:5432/postgres] [--calls 20000] [--rounds 3]
import { Client } from "pg";
import { migrate } from "../scripts/lib";
import { startRedis } from "../tests/support/redis";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : argv[i + 1]!;
};
const ADMIN_URL = option("--postgres", "postgresql://postgres:postgres@127.0.0.1:5432/postgres");
const CALLS = Number(option("--calls", "20000"));
const ROUNDS = Number(option("--rounds", "3"));
const IN_FLIGHT = 64;

const ONE_STATEMENT = `INSERT INTO "SharedState" ("key", "count", "expiresAt") VALUES ($1, $4, $3)
ON CONFLICT ("key") DO UPDATE SET
  "count" = CASE WHEN "SharedState"."expiresAt" <= $2 THEN $4 ELSE "SharedState"."count" + $4 END,
  "expiresAt" = CASE WHEN "SharedState"."expiresAt" <= $2 THEN $3 ELSE "SharedState"."expiresAt" END
WHERE "SharedState"."expiresAt" <= $2 OR "SharedState"."count" + $4 <= $5
RETURNING "count"`;

type Charge = (i: number) => unknown;

async function time(charge: Charge): Promise<{ wallUs: number; cpuUs: number }> {
  const run = async (from: number, count: number): Promise<void> => {
    let next = from;
    const worker = async (): Promise<void> => {
      while (next < from + count) {
        const outcome = charge(next++);
        if (outcome instanceof Promise) await outcome;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  };
  await run(0, Math.ceil(CALLS / 5));
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run(CALLS, CALLS);
  const wallUs = Number(process.hrtime.bigint() - start) / 1000 / CALLS;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: (used.user + used.system) / CALLS };
}

async function main(): Promise<void> {
  const name = `agent_gate_micro_state_${process.pid}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const redis = await startRedis();
  try {
    migrate(url.toString(), true);
    const { configFrom, installConfig } = await import("@/lib/config");
    installConfig(configFrom({ DATABASE_URL: url.toString(), BASE_URL: "http://localhost:3000" }));
    const { systemClock } = await import("@/lib/clock");
    const { db } = await import("@/lib/db");
    const { MemoryStore } = await import("@/lib/shared-state/memory");
    const { PostgresStore } = await import("@/lib/shared-state/postgres");
    const { RedisStore } = await import("@/lib/shared-state/redis");
    const memory = new MemoryStore();
    const batched = new PostgresStore(systemClock);
    const viaRedis = new RedisStore({ url: redis.url, deadlineMs: 50, fallbackOnce: () => true, fallbackOnceName: "memory" });
    await viaRedis.start();
    // Each caller its own key, 64 of them per round of keys, far under their limit (the bench's allowances).
    const charges = (i: number) => [{ scope: "ask", key: `198.18.${(i >> 8) & 255}.${i & 63}`, cost: 1, limit: 1_000_000_000, windowSeconds: 60 }];
    const variants: [string, Charge][] = [
      ["memory", (i) => memory.charge(charges(i), Date.now())],
      ["postgres (batches)", (i) => batched.charge(charges(i))],
      [
        "postgres (statement)",
        (i) => {
          const now = Date.now();
          const [charge] = charges(i);
          return db().query(ONE_STATEMENT, [`c:${charge!.scope}:${charge!.key}`, new Date(now), new Date(now + 60_000), 1, charge!.limit]);
        },
      ],
      ["redis", (i) => viaRedis.charge(charges(i), Date.now())],
    ];
    const results = new Map<string, { wallUs: number; cpuUs: number }[]>(variants.map(([label]) => [label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, charge] of round % 2 === 0 ? variants : [...variants].reverse()) results.get(label)!.push(await time(charge));
    }
    console.log(`${CALLS} charges per round, ${IN_FLIGHT} in flight, ${ROUNDS} rounds alternating; µs per charge (each round)`);
    for (const [label, rounds] of results) {
      const fmt = (pick: (r: { wallUs: number; cpuUs: number }) => number) => rounds.map((r) => pick(r).toFixed(1)).join(", ");
      console.log(`${label.padEnd(22)} wall ${fmt((r) => r.wallUs)}; this process's CPU ${fmt((r) => r.cpuUs)}`);
    }
    await batched.stop();
    await viaRedis.stop();
    const { closeConnection } = await import("@/lib/db");
    await closeConnection();
  } finally {
    await redis.stop();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
