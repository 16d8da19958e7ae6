// Issue 19, item 6: `npm start` refuses what it cannot serve safely — every problem at once, each line naming
// its variable and the fix, exit code 1, no request answered — and the embedded SQLite default migrates itself.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freshDatabase, postgresAdminUrl, ROOT, testProvider, TMP } from "../support/databases";
import { bareNextStart } from "../support/bare-next";
import { freePort } from "../support/server";
import { startProblems } from "../support/log";

const KEY = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
const SECRET = "a-session-secret-of-more-than-32-characters";
const UNREACHABLE_PG = "postgresql://nobody:nothing@127.0.0.1:1/none";

interface StartRun {
  /** Exit code once the process ended; null while it runs. */
  code: number | null;
  output: string;
  /** Status of the first request answered, if any was. */
  answered: number | null;
  stop(): Promise<void>;
}

function getStatus(port: number, pathName: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: pathName, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(2000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

/**
 * `npm start` (PORT from the environment, as a deployment sets it) with exactly `env` on top of a clean base
 * (none of this process's configuration leaks in). Resolves when the process has exited or answers a request.
 */
async function npmStart(env: Record<string, string>, cwd: string = ROOT, args: string[] = []): Promise<StartRun> {
  const port = await freePort();
  const base: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  const child = spawn("npm", ["start", "--silent", ...(args.length > 0 ? ["--", ...args] : [])], {
    cwd,
    env: { ...base, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: npm, its shell and next stop together
  });
  const run: StartRun = { code: null, output: "", answered: null, stop: async () => undefined };
  child.stdout.on("data", (d: Buffer) => (run.output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (run.output += d.toString()));
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      run.code = code ?? (signal ? 128 : null);
      resolve();
    }),
  );
  run.stop = async () => {
    if (run.code !== null) return;
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    const kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(kill, 5000);
    await exited;
    clearTimeout(timer);
    // npm exits first: the server (same process group) must be gone too before the project directory is removed.
    const groupAlive = (): boolean => {
      try {
        process.kill(-child.pid!, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let waited = 0; waited < 50 && groupAlive(); waited++) await new Promise((resolve) => setTimeout(resolve, 100));
    if (groupAlive()) kill();
  };
  const deadline = Date.now() + 90_000;
  // Ask all along: a refused start must exit without ever answering (Next holds requests until start-up work is done).
  while (run.code === null && run.answered === null && Date.now() < deadline) {
    try {
      run.answered = await getStatus(port, "/.well-known/oauth-protected-resource");
    } catch {
      await Promise.race([exited, new Promise((r) => setTimeout(r, 150))]);
    }
  }
  if (run.code === null && run.answered === null) {
    await run.stop();
    throw new Error(`npm start neither exited nor answered within 90 s:\n${run.output}`);
  }
  return run;
}

type LogLine = { type?: unknown; msg?: unknown; level?: unknown; variable?: unknown };

/** Every line the start wrote, each of which must be a JSON log line with a type (issue 51: one log format). */
function logLines(output: string): LogLine[] {
  return output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
      expect(typeof parsed.type, line).toBe("string");
      return parsed;
    });
}

/** The problems a refused start reported, in order (every line checked to be a JSON log line first). */
function problemLines(output: string): string[] {
  logLines(output);
  return startProblems(output);
}

async function expectRefused(env: Record<string, string>, expected: RegExp[], args: string[] = []): Promise<string[]> {
  const run = await npmStart(env, ROOT, args);
  expect(run.answered, run.output).toBeNull();
  expect(run.code, run.output).toBe(1);
  const lines = problemLines(run.output);
  expect(lines, run.output).toHaveLength(expected.length);
  expected.forEach((pattern, index) => expect(lines[index]).toMatch(pattern));
  const refused = logLines(run.output).filter((line) => line.type === "start_refused");
  expect(refused, run.output).toHaveLength(1);
  expect(refused[0]).toMatchObject({ level: "fatal", msg: expect.stringMatching(/^Not started: \d+ problems? above/) });
  return lines;
}

const production = { BASE_URL: "https://gate.example.com", SIGNING_KEYS: JSON.stringify([KEY]), AUTH_SECRET: SECRET };

describe("npm start refuses an unsafe configuration (exit code 1, nothing answered)", () => {
  it("reports every problem at once, each naming its variable and the fix", async () => {
    await expectRefused(
      { VERCEL: "1", DATABASE_URL: "file:/tmp/agent-gate-refused.db", TRUSTED_PROXY: "none", RELEASE_MODE: "staging", SIGNING_KEYS: JSON.stringify([KEY, KEY]) },
      [
        /^Invalid configuration: RELEASE_MODE must be public or private$/,
        /^Invalid configuration: SIGNING_KEYS holds the same key twice \(keys 1 and 2\): remove the duplicate$/,
        /^Invalid configuration: BASE_URL is required on Vercel \(VERCEL=1\): set it to the public https origin/,
        /^Invalid configuration: DATABASE_URL must be a postgresql:\/\/ URL on Vercel \(VERCEL=1\)/,
        /^Invalid configuration: TRUSTED_PROXY must be vercel on Vercel \(VERCEL=1\), not none: remove it .* or set TRUSTED_PROXY=vercel$/,
        /^Invalid configuration: AUTH_SECRET is required in production \(NODE_ENV=production on Vercel\): set it to a random string of at least 32 characters/,
      ],
    );
  }, 120_000);

  it("VERCEL=1 without BASE_URL (and no VERCEL_PROJECT_PRODUCTION_URL)", async () => {
    await expectRefused({ VERCEL: "1", DATABASE_URL: UNREACHABLE_PG, SIGNING_KEYS: production.SIGNING_KEYS, AUTH_SECRET: SECRET }, [
      /^Invalid configuration: BASE_URL is required on Vercel/,
    ]);
  }, 120_000);

  it("VERCEL=1 with an SQLite file database", async () => {
    await expectRefused({ VERCEL: "1", ...production, DATABASE_URL: "file:./data/app.db" }, [/^Invalid configuration: DATABASE_URL must be a postgresql:\/\/ URL on Vercel/]);
  }, 120_000);

  it("VERCEL=1 with a TRUSTED_PROXY other than vercel", async () => {
    await expectRefused({ VERCEL: "1", ...production, DATABASE_URL: UNREACHABLE_PG, TRUSTED_PROXY: "1" }, [
      /^Invalid configuration: TRUSTED_PROXY must be vercel on Vercel \(VERCEL=1\), not 1/,
    ]);
  }, 120_000);

  it("an http BASE_URL in production, naming the opt-out", async () => {
    const databaseUrl = await freshDatabase("insecure");
    await expectRefused({ ...production, BASE_URL: "http://gate.example.com", DATABASE_URL: databaseUrl }, [
      /^Invalid configuration: BASE_URL must be https:\/\/ in production .*: serve it over TLS and set BASE_URL=https:\/\/…, or set ALLOW_INSECURE_BASE_URL=1/,
    ]);
  }, 120_000);

  it("ALLOW_INSECURE_BASE_URL=1 lets an http BASE_URL start in production (a trial on a LAN)", async () => {
    const databaseUrl = await freshDatabase("insecure-ok");
    const run = await npmStart({ ...production, BASE_URL: "http://192.168.1.20:3000", ALLOW_INSECURE_BASE_URL: "1", DATABASE_URL: databaseUrl });
    try {
      expect(run.answered, run.output).toBe(200);
      expect(problemLines(run.output)).toEqual([]);
    } finally {
      await run.stop();
    }
  }, 120_000);

  it("WEBHOOK_ALLOW_PRIVATE=1 in production (plaintext webhooks), and TRUSTED_PROXY=vercel without VERCEL=1", async () => {
    const databaseUrl = await freshDatabase("trusts-too-much");
    await expectRefused({ ...production, DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: "1" }, [
      /^Invalid configuration: WEBHOOK_ALLOW_PRIVATE must not be 1 in production \(NODE_ENV=production with a non-localhost BASE_URL\): .*remove it/,
    ]);
    await expectRefused({ ...production, DATABASE_URL: databaseUrl, TRUSTED_PROXY: "vercel" }, [
      /^Invalid configuration: TRUSTED_PROXY is vercel, but this is not Vercel \(VERCEL=1 is unset\)/,
    ]);
  }, 120_000);

  it("a malformed operator setting or budget allowance, instead of silently keeping its default", async () => {
    const databaseUrl = await freshDatabase("settings");
    await expectRefused({ ...production, DATABASE_URL: databaseUrl, LOG_LEVEL: "loud", RATE_LIMIT_ASK_PER_MINUTE: "lots" }, [
      /^Invalid configuration: LOG_LEVEL is malformed: /,
      /^Invalid configuration: RATE_LIMIT_ASK_PER_MINUTE must be a whole number from 1 \(the ask allowance per 60 seconds\)$/,
    ]);
  }, 120_000);

  it("a test option (a --test- flag of the server) in production, and an unknown one anywhere", async () => {
    const databaseUrl = await freshDatabase("test-options");
    await expectRefused(
      { ...production, DATABASE_URL: databaseUrl },
      [/^Invalid configuration: --test-webhook-poll-ms is a test option, refused in production/],
      ["--test-webhook-poll-ms=200"],
    );
    await expectRefused({ DATABASE_URL: databaseUrl }, [/^Invalid configuration: --test-turns is not a test option/], ["--test-turns=off"]);
  }, 120_000);

  it("SIGNING_KEYS that are not private Ed25519 JWKs, or share a kid", async () => {
    const databaseUrl = await freshDatabase("keys");
    await expectRefused({ ...production, DATABASE_URL: databaseUrl, SIGNING_KEYS: JSON.stringify([{ kty: "OKP", crv: "Ed25519", x: KEY.x }]) }, [
      /^Invalid configuration: SIGNING_KEYS key 1 is not a private Ed25519 JWK: it must be a non-empty JSON array of private Ed25519 JWKs/,
    ]);
    await expectRefused({ ...production, DATABASE_URL: databaseUrl, SIGNING_KEYS: "[]" }, [/^Invalid configuration: SIGNING_KEYS must be a non-empty JSON array/]);
  }, 120_000);
});

/** `npm run -s config` with exactly `env` on a clean base, as npmStart runs `npm start`. */
function npmRunConfig(env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const base: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  // NODE_ENV=test: the command checks as every production start does, whatever the shell has.
  const childEnv = { ...base, NODE_ENV: "test", NEXT_TELEMETRY_DISABLED: "1", ...env } as const;
  const run = spawnSync("npm", ["run", "-s", "config"], { cwd: ROOT, env: childEnv, encoding: "utf8", timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A bare `next start` (no server.ts) that is expected to refuse: its problem lines once it has exited with code 1. */
async function bareRefusal(env: Record<string, string>, trustedProxy: string): Promise<string[]> {
  const refused = await bareNextStart(trustedProxy, "production", env);
  const timer = setTimeout(() => refused.child.kill("SIGKILL"), 60_000);
  const code = await refused.exited;
  clearTimeout(timer);
  expect(code, refused.output()).toBe(1);
  // Next's own banner ("▲ Next.js …") is text; every line of ours is a JSON log line.
  expect(refused.output()).not.toMatch(/^(Invalid configuration|Database not ready|\[agent-gate\])/m);
  return startProblems(refused.output());
}

const MISSPELT = [
  /^Invalid configuration: ADMISSION_PUBLIC_QUEU is not a setting; did you mean ADMISSION_PUBLIC_QUEUE\?$/,
  /^Invalid configuration: RATE_LIMIT_ASK_PER_MINUT is not a setting; did you mean RATE_LIMIT_ASK_PER_MINUTE\?$/,
];

describe("every name checked: a misspelt setting stops every start mode, with the name meant (issue 51)", () => {
  it("npm start, and `npm run -s config` lists the same lines and exits 1", async () => {
    const env = { ...production, DATABASE_URL: await freshDatabase("misspelt"), RATE_LIMIT_ASK_PER_MINUT: "5", ADMISSION_PUBLIC_QUEU: "3" };
    const lines = await expectRefused(env, MISSPELT);
    const config = npmRunConfig(env);
    expect(config.code, config.stderr).toBe(1);
    // A command for a person: the start's messages as text, one a line, then the count.
    expect(config.stderr.split("\n").filter((line) => /^(Invalid configuration|Database not ready): /.test(line))).toEqual(lines);
    expect(config.stdout).toMatch(/^ {2}RATE_LIMIT_ASK_PER_MINUTE +unset +default: 600 per minute$/m);
  }, 120_000);

  it("a bare `next start` (instrumentation.ts)", async () => {
    expect(await bareRefusal({ ...production, RATE_LIMIT_ASK_PER_MINUT: "5", ADMISSION_PUBLIC_QUEU: "3" }, "1")).toEqual([
      expect.stringMatching(MISSPELT[0]!),
      expect.stringMatching(MISSPELT[1]!),
    ]);
  }, 90_000);

  it("a start as on Vercel (VERCEL=1, no server.ts), where the first read is instrumentation.ts's", async () => {
    const vercel = { ...production, VERCEL: "1", DATABASE_URL: UNREACHABLE_PG, RATE_LIMIT_ASK_PER_MINUT: "5", ADMISSION_PUBLIC_QUEU: "3" };
    expect(await bareRefusal(vercel, "vercel")).toEqual([expect.stringMatching(MISSPELT[0]!), expect.stringMatching(MISSPELT[1]!)]);
  }, 90_000);

  it("`npm run -s config` on a good configuration: exit 0, every value with its source, no secret's value", async () => {
    const env = { ...production, DATABASE_URL: UNREACHABLE_PG, METRICS_TOKEN: "metrics-token-value-123", ADMISSION_PUBLIC_QUEUE: "7" };
    const config = npmRunConfig(env);
    expect(config.code, config.stderr).toBe(0);
    expect(config.stdout).toMatch(/^ {2}BASE_URL +https:\/\/gate\.example\.com +environment$/m);
    expect(config.stdout).toMatch(/^ {2}ADMISSION_PUBLIC_QUEUE +7 +environment$/m);
    expect(config.stdout).toMatch(/^ {2}ADMISSION_PUBLIC_IN_FLIGHT +16 +default$/m);
    expect(config.stdout).toMatch(/^ {2}AUTH_SECRET +set +environment$/m);
    expect(config.stdout).toMatch(/^ {2}CRON_SECRET +unset +default/m);
    expect(config.stdout).toMatch(/^ {2}DATABASE_URL +postgresql:\/\/nobody:\*\*\*\*@127\.0\.0\.1:1\/none +environment$/m);
    for (const secret of [SECRET, KEY.d, "metrics-token-value-123", ":nothing@"]) expect(config.stdout + config.stderr).not.toContain(secret);
  }, 90_000);
});

describe("a database that is not migrated", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  async function emptyDatabase(): Promise<string> {
    if (testProvider() === "sqlite") {
      const file = path.join(TMP, `empty-${process.pid}-${Date.now()}.db`);
      new Database(file).close(); // an empty SQLite file: no tables at all
      cleanups.push(() => fs.rmSync(file, { force: true }));
      return `file:${file}`;
    }
    const database = `agt_empty_${process.pid}_${Date.now()}`;
    const admin = new Client({ connectionString: postgresAdminUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    cleanups.push(async () => {
      const drop = new Client({ connectionString: postgresAdminUrl() });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await drop.end();
    });
    const url = new URL(postgresAdminUrl());
    url.pathname = `/${database}`;
    return url.toString();
  }

  it(`an empty ${testProvider()} database refuses with the db:migrate hint`, async () => {
    await expectRefused({ DATABASE_URL: await emptyDatabase() }, [
      /^Database not ready: DATABASE_URL points to a database that was never migrated \(no _prisma_migrations table\): run `npm run db:migrate` with this DATABASE_URL, then start again$/,
    ]);
  }, 120_000);

  it("a missing SQLite file that is not the default refuses (and is not created)", async () => {
    const file = path.join(TMP, `missing-${process.pid}.db`);
    await expectRefused({ DATABASE_URL: `file:${file}` }, [/^Database not ready: DATABASE_URL points to a database that was never migrated .*npm run db:migrate/]);
    expect(fs.existsSync(file)).toBe(false);
  }, 120_000);

  /** Forgets the latest applied migration of a fresh migrated database; returns its name. */
  async function forgetLatestMigration(databaseUrl: string): Promise<string> {
    const latest = `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`;
    if (databaseUrl.startsWith("file:")) {
      const db = new Database(databaseUrl.replace(/^file:/, ""));
      const { migration_name: name } = db.prepare(latest).get() as { migration_name: string };
      db.prepare(`DELETE FROM "_prisma_migrations" WHERE migration_name = ?`).run(name);
      db.close();
      return name;
    }
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const name = ((await client.query(latest)).rows[0] as { migration_name: string }).migration_name;
    await client.query(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, [name]);
    await client.end();
    return name;
  }

  it(`a ${testProvider()} database behind the checked-in migrations names the missing ones`, async () => {
    const databaseUrl = await freshDatabase("behind");
    const name = await forgetLatestMigration(databaseUrl);
    await expectRefused({ DATABASE_URL: databaseUrl }, [
      new RegExp(`^Database not ready: DATABASE_URL points to a database that is not migrated: 1 migration not applied \\(${name}\\); run \`npm run db:migrate\``),
    ]);
  }, 120_000);

  it("is reported together with the configuration's problems", async () => {
    await expectRefused({ DATABASE_URL: await emptyDatabase(), RELEASE_MODE: "staging" }, [/^Invalid configuration: RELEASE_MODE /, /^Database not ready: DATABASE_URL /]);
  }, 120_000);
});

describe("the embedded SQLite default (DATABASE_URL unset) migrates itself", () => {
  // A project directory of its own whose data/ starts empty: the built app, its dependencies and the
  // migrations are links to this checkout, so the real default database (./data/app.db) is never touched.
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "agent-gate-default-db-"));
  for (const entry of [".next", "dist", "node_modules", "prisma", "lib", "content", "scripts", "package.json", "next.config.ts", "prisma.config.ts", "tsconfig.json"]) {
    fs.symlinkSync(path.join(ROOT, entry), path.join(project, entry));
  }
  afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

  it("applies every checked-in migration at start, then serves", async () => {
    const run = await npmStart({ BASE_URL: "http://localhost:3000" }, project);
    try {
      expect(run.answered, run.output).toBe(200);
      expect(logLines(run.output)).toContainEqual(
        expect.objectContaining({ type: "start", msg: expect.stringContaining("Applied the migrations to the embedded SQLite database") }),
      );
      const db = new Database(path.join(project, "data", "app.db"), { readonly: true });
      const applied = (db.prepare(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL`).all() as { migration_name: string }[]).map(
        (r) => r.migration_name,
      );
      db.close();
      const checkedIn = fs.readdirSync(path.join(ROOT, "prisma", "migrations")).filter((name) => fs.existsSync(path.join(ROOT, "prisma", "migrations", name, "migration.sql")));
      expect(applied.sort()).toEqual(checkedIn.sort());
    } finally {
      await run.stop();
    }
  }, 150_000);
});
