// Health (issue #17 item 1): `alive()` (the process answers; no database) and `ready()` (the database
// answers within 1 s, every migration folder is applied, the signing keys load). Cheap enough to probe
// every second: `SELECT 1` at most once a second (recentReady); the migration check is remembered once it passed (migrations are
// only added by a deploy, which restarts the process); the key set is cached by lib/keys.
import { jsonReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import fs from "node:fs";
import path from "node:path";
import { db, sqlProvider } from "@/lib/db";
import { getKeySet } from "@/lib/keys";
import { processSingleton } from "@/lib/registry";
import { sharedStateReport } from "@/lib/shared-state";
import type { HealthCheckStatus, LivenessResponse, ReadinessResponse } from "@/lib/schemas/operations";

export const DATABASE_CHECK_TIMEOUT_MS = 1000;

export interface HealthAnswer<T> {
  status: 200 | 503;
  body: T;
}

export function alive(): HealthAnswer<LivenessResponse> {
  return { status: 200, body: { status: "ok", checks: { process: "ok" } } };
}

/** Rejects when `work` has not settled within `ms` (the timer never keeps the process alive). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The migration folders this build ships for the database's provider. */
export function expectedMigrations(provider: "sqlite" | "postgres", root = process.cwd()): string[] {
  const dir = provider === "sqlite" ? path.join(root, "prisma", "migrations") : path.join(root, "prisma", "postgres", "migrations");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

// Per process (lib/registry: Next bundles route modules separately).
const remembered = processSingleton<{ agentGateMigrationsApplied?: boolean }>("operator.migrations-applied", () => ({}));

async function migrationsApplied(): Promise<boolean> {
  if (remembered.agentGateMigrationsApplied) return true;
  const expected = expectedMigrations(sqlProvider());
  const rows = await within(
    db().query<{ name: string }>(`SELECT "migration_name" AS "name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`),
    DATABASE_CHECK_TIMEOUT_MS,
  );
  const applied = new Set(rows.map((row) => row.name));
  const complete = expected.every((name) => applied.has(name));
  if (complete) remembered.agentGateMigrationsApplied = true;
  return complete;
}

async function check(run: () => Promise<boolean>): Promise<HealthCheckStatus> {
  try {
    return (await run()) ? "ok" : "fail";
  } catch {
    return "fail";
  }
}

export async function ready(): Promise<HealthAnswer<ReadinessResponse>> {
  const database = await check(async () => {
    await within(db().query(`SELECT 1 AS "one"`), DATABASE_CHECK_TIMEOUT_MS);
    return true;
  });
  const migrations = database === "ok" ? await check(migrationsApplied) : "not_checked";
  const signingKeys = await check(async () => (await within(getKeySet(), DATABASE_CHECK_TIMEOUT_MS)).all.length > 0);
  // A degraded shared store leaves the instance ready: it answers from its fallback (lib/shared-state).
  const shared = sharedStateReport();
  const ok = database === "ok" && migrations === "ok" && signingKeys === "ok";
  return {
    status: ok ? 200 : 503,
    body: { status: ok ? "ok" : "fail", checks: { database, migrations, signing_keys: signingKeys, shared_state: shared.condition }, shared_state_store: shared.store },
  };
}

/** The HTTP answer of /healthz and /readyz: JSON, never cached (HEAD: the same headers, no body). */
export function healthReply(answer: HealthAnswer<unknown>, method = "GET"): ApiReply {
  return jsonReply(answer.body, { "cache-control": "no-store" }, answer.status, method === "HEAD");
}

/** GET|HEAD /healthz. */
export const aliveReply = async (request: ApiRequest): Promise<ApiReply> => healthReply(alive(), request.method);

/** How long one readiness answer is reused: a flood of probes costs one database round a second, not one each. */
export const READY_CACHE_MS = 1000;

let latestReady: { at: number; answer: Promise<HealthAnswer<ReadinessResponse>> } | undefined;

/**
 * ready(), shared by every probe within READY_CACHE_MS of the one that ran it (probes that arrive while it runs wait
 * for the same answer). /readyz skips admission (lib/routes UNQUEUED), so it must stay this cheap.
 */
export function recentReady(now: number = performance.now()): Promise<HealthAnswer<ReadinessResponse>> {
  if (latestReady === undefined || now - latestReady.at >= READY_CACHE_MS) latestReady = { at: now, answer: ready() };
  return latestReady.answer;
}

/** GET|HEAD /readyz. */
export const readyReply = async (request: ApiRequest): Promise<ApiReply> => healthReply(await recentReady(), request.method);
