// lib/startup/preflight.ts: which database migrates itself, when, and what is reported (issue 19, item 6).
// The migration step is injected (it runs the checked-in SQL and records it as Prisma does) so these cases stay fast;
// tests/http/start-refusals.test.ts runs the real `prisma migrate deploy` through `npm start`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { isDefaultDatabase, preflight, startProblemLine } from "@/lib/startup/preflight";
import { migrationState, sqliteFileIn } from "@/lib/startup/migrations";
import { ROOT } from "../support/databases";

/** What `prisma migrate deploy` leaves behind on SQLite: the schema and one finished row per migration. */
function applyCheckedInSql(file: string, count = Infinity): void {
  const folder = path.join(ROOT, "prisma", "migrations");
  const db = new Database(file);
  db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL,
    "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
  const applied = new Set((db.prepare(`SELECT migration_name FROM "_prisma_migrations"`).all() as { migration_name: string }[]).map((r) => r.migration_name));
  const names = fs
    .readdirSync(folder)
    .filter((name) => fs.existsSync(path.join(folder, name, "migration.sql")))
    .sort()
    .slice(0, count);
  for (const name of names) {
    const sql = path.join(folder, name, "migration.sql");
    if (applied.has(name)) continue;
    db.exec(fs.readFileSync(sql, "utf8"));
    db.prepare(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (?, '', current_timestamp, ?, 1)`).run(name, name);
  }
  db.close();
}

/** A project directory of its own (prisma/ linked to this checkout), so file:./data/app.db is a fresh file. */
function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-preflight-"));
  fs.symlinkSync(path.join(ROOT, "prisma"), path.join(dir, "prisma"));
  return dir;
}
const projects: string[] = [];
afterAll(() => {
  for (const dir of projects) fs.rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const dir = project();
  projects.push(dir);
  const calls: string[] = [];
  const lines: string[] = [];
  const migrate = async (databaseUrl: string, projectDir: string): Promise<void> => {
    calls.push(databaseUrl);
    const file = sqliteFileIn(databaseUrl, projectDir);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    applyCheckedInSql(file);
  };
  return { dir, calls, lines, migrate, log: (line: string) => lines.push(line) };
}

describe("preflight", () => {
  it("treats DATABASE_URL unset, empty or file:./data/app.db as the embedded default, nothing else", () => {
    expect(isDefaultDatabase({})).toBe(true);
    expect(isDefaultDatabase({ DATABASE_URL: "" })).toBe(true);
    expect(isDefaultDatabase({ DATABASE_URL: "file:./data/app.db" })).toBe(true);
    expect(isDefaultDatabase({ DATABASE_URL: "file:./data/other.db" })).toBe(false);
    expect(isDefaultDatabase({ DATABASE_URL: "file:/srv/data/app.db" })).toBe(false);
    expect(isDefaultDatabase({ DATABASE_URL: "postgresql://u:p@db/app" })).toBe(false);
  });

  it("migrates the default database when it does not exist, once, and starts", async () => {
    const t = setup();
    const result = await preflight({ env: {}, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(result.problems).toEqual([]);
    expect(result.config?.databaseUrl).toBe("file:./data/app.db");
    expect(t.calls).toEqual(["file:./data/app.db"]);
    expect(t.lines).toEqual([expect.stringContaining("Applied the migrations to the embedded SQLite database")]);
    expect(await migrationState("file:./data/app.db", t.dir)).toEqual({ kind: "current" });
    // The next start finds it migrated and does nothing.
    const again = await preflight({ env: { DATABASE_URL: "file:./data/app.db" }, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(again.problems).toEqual([]);
    expect(t.calls).toHaveLength(1);
  });

  it("migrates the default database when a migration is missing from it", async () => {
    const t = setup();
    fs.mkdirSync(path.join(t.dir, "data"));
    applyCheckedInSql(sqliteFileIn("file:./data/app.db", t.dir), 1); // an older release's database
    expect((await migrationState("file:./data/app.db", t.dir)).kind).toBe("behind");
    const result = await preflight({ env: {}, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(result.problems).toEqual([]);
    expect(t.calls).toHaveLength(1);
    expect(await migrationState("file:./data/app.db", t.dir)).toEqual({ kind: "current" });
  });

  it("never migrates another database: an empty one is refused with the db:migrate hint", async () => {
    const t = setup();
    const file = path.join(t.dir, "elsewhere.db");
    new Database(file).close();
    const result = await preflight({ env: { DATABASE_URL: `file:${file}` }, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(t.calls).toEqual([]);
    expect(result.config).toBeUndefined();
    expect(result.problems).toEqual([{ kind: "database", variable: "DATABASE_URL", detail: expect.stringContaining("run `npm run db:migrate`") }]);
  });

  it("does not migrate the default database on a start refused for another reason, nor reports it", async () => {
    const t = setup();
    const result = await preflight({ env: { RELEASE_MODE: "staging" }, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(t.calls).toEqual([]);
    expect(result.problems.map((p) => p.variable)).toEqual(["RELEASE_MODE"]);
    expect(fs.existsSync(path.join(t.dir, "data", "app.db"))).toBe(false);
  });

  it("refuses malformed operator settings and budget allowances with the rest, one line each, instead of their defaults", async () => {
    const t = setup();
    const env = { LOG_LEVEL: "loud", DATABASE_POOL_MAX: "0", METRICS_TOKEN: "short", RATE_LIMIT_ASK_PER_MINUTE: "lots", RATE_LIMIT_MCP_PER_MINUTE: "-1", RELEASE_MODE: "staging" };
    const result = await preflight({ env, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(result.config).toBeUndefined();
    expect(result.problems.map((p) => p.variable).sort()).toEqual(
      ["DATABASE_POOL_MAX", "LOG_LEVEL", "METRICS_TOKEN", "RATE_LIMIT_ASK_PER_MINUTE", "RATE_LIMIT_MCP_PER_MINUTE", "RELEASE_MODE"].sort(),
    );
    expect(result.problems.every((p) => p.kind === "configuration")).toBe(true);
    expect(t.calls).toEqual([]);
  });

  it("accepts well-formed operator settings and allowances", async () => {
    const t = setup();
    const env = { LOG_LEVEL: "warn", DATABASE_POOL_MAX: "4", METRICS_TOKEN: "a-metrics-token-of-32-characters", RATE_LIMIT_ASK_PER_MINUTE: "120" };
    const result = await preflight({ env, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(result.problems).toEqual([]);
    expect(result.config).toBeDefined();
  });

  it("reports a failed migration of the default database as a problem", async () => {
    const t = setup();
    const failing = async (): Promise<void> => {
      throw new Error("prisma migrate deploy failed: P3009");
    };
    const result = await preflight({ env: {}, projectDir: t.dir, migrate: failing, log: t.log });
    expect(result.problems).toEqual([
      { kind: "database", variable: "DATABASE_URL", detail: expect.stringMatching(/could not be migrated: prisma migrate deploy failed: P3009; run `npm run db:migrate`/) },
    ]);
  });

  it("an unreachable database is no refusal: one line, and the app answers 503 until it is reachable", async () => {
    const t = setup();
    const result = await preflight({ env: { DATABASE_URL: "postgresql://nobody:nothing@127.0.0.1:1/none" }, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(result.problems).toEqual([]);
    expect(result.config?.databaseProvider).toBe("postgresql");
    expect(t.lines).toEqual([expect.stringMatching(/^Could not check the database's migrations \(ECONNREFUSED\); requests that need it answer 503/)]);
  });

  it("without the migration folders (a deployment that did not ship them) an empty database is still refused, a migrated one is not", async () => {
    const t = setup();
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-bare-"));
    projects.push(bare);
    const empty = path.join(bare, "empty.db");
    new Database(empty).close();
    expect((await preflight({ env: { DATABASE_URL: `file:${empty}` }, projectDir: bare, log: t.log })).problems.map((p) => p.variable)).toEqual(["DATABASE_URL"]);
    const migrated = path.join(t.dir, "migrated.db");
    applyCheckedInSql(migrated);
    const result = await preflight({ env: { DATABASE_URL: `file:${migrated}` }, projectDir: bare, log: t.log });
    expect(result.problems).toEqual([]);
    expect(t.lines).toEqual([expect.stringContaining("the checked-in migrations are not deployed with the app")]);
  });
});

describe("preflight without server.ts (a bare `next start`, issue 32)", () => {
  const BASE = { NODE_ENV: "production", BASE_URL: "http://localhost:3000" };

  it("refuses TRUSTED_PROXY=none (set or by default) in production with one TRUSTED_PROXY line naming the fix", async () => {
    for (const env of [BASE, { ...BASE, TRUSTED_PROXY: "none" }]) {
      const t = setup();
      const result = await preflight({ env, projectDir: t.dir, migrate: t.migrate, log: t.log, serverEntry: false });
      expect(result.config).toBeUndefined();
      expect(result.problems).toEqual([
        { kind: "configuration", variable: "TRUSTED_PROXY", detail: expect.stringMatching(/without server\.ts.*`npm start`.*number of proxies.*vercel/) },
      ]);
    }
  });

  it("accepts a hop count or a proxy list, outside production anything, and server.ts's own start as before", async () => {
    const starts = [
      { env: { ...BASE, TRUSTED_PROXY: "1" }, serverEntry: false },
      { env: { ...BASE, TRUSTED_PROXY: "loopback,10.0.0.0/8" }, serverEntry: false },
      { env: { BASE_URL: "http://localhost:3000" }, serverEntry: false },
      { env: BASE, serverEntry: true },
      { env: BASE, serverEntry: undefined },
    ];
    for (const { env, serverEntry } of starts) {
      const t = setup();
      const result = await preflight({ env, projectDir: t.dir, migrate: t.migrate, log: t.log, serverEntry });
      expect(result.problems, JSON.stringify(env)).toEqual([]);
    }
  });
});

describe("preflight refuses what trusts too much (issue 41 items 6 and 7)", () => {
  const PRODUCTION = { NODE_ENV: "production", BASE_URL: "https://gate.example.com", AUTH_SECRET: "s".repeat(40) };

  it("WEBHOOK_ALLOW_PRIVATE=1 in production and TRUSTED_PROXY=vercel outside Vercel: one line each, with the fix", async () => {
    const t = setup();
    const result = await preflight({ env: { ...PRODUCTION, WEBHOOK_ALLOW_PRIVATE: "1", TRUSTED_PROXY: "vercel" }, projectDir: t.dir, migrate: t.migrate, log: t.log });
    expect(result.config).toBeUndefined();
    const lines = result.problems.filter((p) => p.variable !== "SIGNING_KEYS").map((p) => startProblemLine(p));
    expect(lines).toEqual([
      expect.stringMatching(/^Invalid configuration: TRUSTED_PROXY is vercel, but this is not Vercel \(VERCEL=1 is unset\).*loopback/),
      expect.stringMatching(/^Invalid configuration: WEBHOOK_ALLOW_PRIVATE must not be 1 in production .*remove it/),
    ]);
  });
});
