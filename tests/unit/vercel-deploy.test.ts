// Issue 33: the shipped Vercel configuration deploys on every plan (Hobby refuses a cron job that runs more than
// once a day), and its build migrates through the platform's direct URL, not the pooled DATABASE_URL.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrationDatabaseUrl } from "../../scripts/lib";

interface VercelJson {
  buildCommand?: string;
  crons?: { path: string; schedule: string }[];
}

const vercel = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../vercel.json"), "utf8")) as VercelJson;

/** At most once a day: five fields, and minute and hour are each one number in range (no *, list, range or step). */
function runsAtMostDaily(schedule: string): boolean {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) return false;
  const [minute, hour] = fields as [string, string];
  const single = (field: string, max: number) => /^\d{1,2}$/.test(field) && Number(field) <= max;
  return single(minute, 59) && single(hour, 23);
}

describe("vercel.json", () => {
  it("the daily check refuses what Hobby refuses", () => {
    for (const schedule of ["* * * * *", "0 * * * *", "*/5 * * * *", "0 */6 * * *", "0 1,13 * * *", "0 1-3 * * *", "0,30 4 * * *", "60 4 * * *", "0 24 * * *", "0 4 * *"]) {
      expect(runsAtMostDaily(schedule), schedule).toBe(false);
    }
    for (const schedule of ["0 4 * * *", "30 23 * * 1", "5 0 1 * *"]) expect(runsAtMostDaily(schedule), schedule).toBe(true);
  });

  it("schedules the janitor and webhook delivery, each at most once a day", () => {
    expect(vercel.crons?.map((c) => c.path).sort()).toEqual(["/api/cron/janitor", "/api/cron/webhooks"]);
    for (const cron of vercel.crons ?? []) expect(runsAtMostDaily(cron.schedule), `${cron.path}: ${cron.schedule}`).toBe(true);
  });

  it("migrates before it builds", () => {
    expect(vercel.buildCommand).toBe("npm run db:migrate && npm run build");
  });
});

describe("the migration step's database URL", () => {
  const pooled = "postgresql://u:p@ep-x-pooler.example.org/db";
  const neonDirect = "postgresql://u:p@ep-x.example.org/db";
  const vercelDirect = "postgresql://u:p@direct.example.org:5432/db";
  const fallback = "file:./data/app.db";

  it("takes DATABASE_URL_UNPOOLED when it is set", () => {
    expect(migrationDatabaseUrl({ DATABASE_URL: pooled, DATABASE_URL_UNPOOLED: neonDirect, POSTGRES_URL_NON_POOLING: vercelDirect }, fallback)).toBe(neonDirect);
  });

  it("else POSTGRES_URL_NON_POOLING", () => {
    expect(migrationDatabaseUrl({ DATABASE_URL: pooled, POSTGRES_URL_NON_POOLING: vercelDirect }, fallback)).toBe(vercelDirect);
    expect(migrationDatabaseUrl({ DATABASE_URL: pooled, DATABASE_URL_UNPOOLED: "", POSTGRES_URL_NON_POOLING: vercelDirect }, fallback)).toBe(vercelDirect);
  });

  it("else DATABASE_URL, else the embedded default", () => {
    expect(migrationDatabaseUrl({ DATABASE_URL: pooled, DATABASE_URL_UNPOOLED: "", POSTGRES_URL_NON_POOLING: "" }, fallback)).toBe(pooled);
    expect(migrationDatabaseUrl({}, fallback)).toBe(fallback);
  });
});

describe("Vercel's build (docs/vercel.md)", () => {
  const root = path.resolve(__dirname, "../..");

  it("compiles no SQLite addon there: npm install's postinstall says so and stops (a deployment there runs on PostgreSQL)", () => {
    const run = spawnSync("npx", ["tsx", "scripts/sqlite-addon.ts"], { cwd: root, env: { ...process.env, VERCEL: "1" }, encoding: "utf8", timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("better-sqlite3: not compiled on Vercel");
    expect(run.stderr).not.toContain("compiling");
  });

  it("loading the SQLite driver loads no addon (only opening a database does), so PostgreSQL runs without one", () => {
    const probe = "process.dlopen = () => { throw new Error('the addon was loaded'); }; require('better-sqlite3'); console.log('loaded without its addon');";
    const run = spawnSync(process.execPath, ["-e", probe], { cwd: root, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("loaded without its addon");
  });
});
