// Throwaway databases for tests: a migrated, demo-seeded template per provider, copied per use.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Client } from "pg";

export const ROOT = path.resolve(__dirname, "../..");
export const TMP = path.join(ROOT, ".tmp");

export type Provider = "sqlite" | "postgres";

export function testProvider(): Provider {
  return process.env.TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
}

/** Admin URL of the PostgreSQL server used by the PostgreSQL pass (TEST_POSTGRES_URL). */
export function postgresAdminUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error("TEST_DATABASE=postgres needs TEST_POSTGRES_URL (e.g. postgresql://postgres:postgres@127.0.0.1:5432/postgres)");
  return url;
}

function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The environment for child processes: vitest sets BASE_URL="/" (Vite's own), which is not ours. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!extra.BASE_URL) delete env.BASE_URL;
  return env;
}

function runScript(args: string[], databaseUrl: string): void {
  execFileSync("npx", args, { cwd: ROOT, env: childEnv({ DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" }), stdio: ["ignore", "pipe", "pipe"] });
}

const TEMPLATE_SQLITE = path.join(TMP, "template.db");
/** Databases of this checkout share a prefix, so checkouts testing side by side never drop each other's. */
const PG_PREFIX = `agt_${createHash("sha1").update(ROOT).digest("hex").slice(0, 8)}`;
const TEMPLATE_PG = `${PG_PREFIX}_template`;

/** Builds the template once per test run (migrations + demo data). */
export async function prepareTemplate(provider: Provider = testProvider()): Promise<void> {
  fs.mkdirSync(TMP, { recursive: true });
  if (provider === "sqlite") {
    for (const f of fs.readdirSync(TMP))
      if (f.endsWith(".db") || f.endsWith(".db-journal") || f.endsWith(".db-wal") || f.endsWith(".db-shm")) fs.rmSync(path.join(TMP, f), { force: true });
    const url = `file:${TEMPLATE_SQLITE}`;
    runScript(["prisma", "migrate", "deploy", "--config", "prisma.config.ts"], url);
    runScript(["tsx", "scripts/seed.ts"], url);
    return;
  }
  const admin = new Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  try {
    const old = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE '${PG_PREFIX}_%'`);
    for (const row of old.rows as { datname: string }[]) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${TEMPLATE_PG}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(postgresAdminUrl(), TEMPLATE_PG);
  runScript(["prisma", "migrate", "deploy", "--config", "prisma.postgres.config.ts"], url);
  runScript(["tsx", "scripts/seed.ts"], url);
}

/** Providers whose template npm test built for this run (tests/support/prepare-templates.ts), comma-separated. */
export const TEMPLATES_READY = "TEST_TEMPLATES_READY";

/** Builds the template unless npm test built it for this run already (then each run only copies it). */
export async function ensureTemplate(provider: Provider = testProvider()): Promise<void> {
  if ((process.env[TEMPLATES_READY] ?? "").split(",").includes(provider)) return;
  await prepareTemplate(provider);
}

/** A fresh database copied from the template; returns its DATABASE_URL. */
export async function freshDatabase(label: string, provider: Provider = testProvider()): Promise<string> {
  const id = `${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(4).toString("hex")}`;
  if (provider === "sqlite") {
    const file = path.join(TMP, `${id}.db`);
    fs.copyFileSync(TEMPLATE_SQLITE, file);
    return `file:${file}`;
  }
  const admin = new Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${PG_PREFIX}_${id}" TEMPLATE "${TEMPLATE_PG}"`);
  } finally {
    await admin.end();
  }
  return withDatabase(postgresAdminUrl(), `${PG_PREFIX}_${id}`);
}
