// npm run bench: builds, fills a throwaway SQLite database and a 500-document CONTENT_DIR, starts
// the production server as `npm start` does (scripts/start.sh: the heap sized from the machine, then dist/server.mjs)
// and the bare-Node baselines, drives every scenario with autocannon from a second process (bench/load.mts), samples
// the server's RSS, and prints one table with ratios and the budget. Last come the mixed load and the overload
// (1,000 connections over six surfaces), where admission control's 503s are sheds, not errors.
//
//   npm run bench [-- --no-build] [--duration 10] [--connections 64] [--only own-account,mcp] [--keep] [--server-log file]
//                 [--mixed-duration 180] [--overload-duration 30] [--server-node-options "<flags for NODE_OPTIONS>"]
//   npx tsx bench/run.ts --smoke --no-build     (CI: 1 s per scenario, no warm-up, 8 connections, exit 1 on any error,
//                                                on other data, on a scenario without answers or a missing ratio)
//   npx tsx bench/run.ts --no-build --only janitor [--expired-tokens 1000000] [--backlog-events 10000]
//                                               (the janitor scenario runs only when --only names it, or in the smoke run with 25,000 tokens)
//   npx tsx bench/run.ts --no-build --postgres postgresql://postgres:postgres@127.0.0.1:5432/postgres --only mixed
//                                               (the server on a fresh PostgreSQL database made through that URL and
//                                                dropped afterwards; the bare baselines and the operator scenarios,
//                                                which read SQLite files directly, do not run)
//   npx tsx bench/run.ts --no-build --postgres <url> --stores --only "GET /ask,MCP lookup_member"
//                                               (issue 50: /ask and MCP lookups on three servers of one database, one
//                                                per shared-state store: memory, postgres, redis (a redis-server the run
//                                                starts), alternating round by round, side by side in the table; only
//                                                these run)
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { routeOfTarget } from "@/lib/routes";
import { migrate, ROOT } from "../scripts/lib";
import { freePort, SERVER_ENTRY, START_SCRIPT } from "../tests/support/server";
import { ASK_QUESTIONS } from "./documents";
import type { DpopReads, LoadJob, LoadResult, RequestVariant } from "./load.mjs";
import { rowOf, type Round, type Row } from "./rows";
import type { BenchFixtures } from "./seed";
import { janitorMillion, webhookBacklog, type SideWork } from "./side-work";

/** Allowances of lib/rate-limit/budgets.ts's in-memory budgets for the bench server: on, but never reached. */
export const BENCH_BUDGETS: Record<string, string> = {
  RATE_LIMIT_MCP_PER_MINUTE: "1000000000",
  RATE_LIMIT_MCP_DOCS_PER_MINUTE: "1000000000",
  RATE_LIMIT_A2A_PER_MINUTE: "1000000000",
  RATE_LIMIT_ASK_PER_MINUTE: "1000000000",
  RATE_LIMIT_LOOKUPS_PER_MINUTE: "1000000000",
  RATE_LIMIT_TOKEN_EXCHANGE_PER_MINUTE: "1000000000",
  RATE_LIMIT_A2A_MESSAGE_SEND_PER_10_MINUTES: "1000000000",
};

// ---------------------------------------------------------------- options

interface Options {
  build: boolean;
  smoke: boolean;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  only: string[] | null;
  /** Runs of each scenario compared with a bare server, alternating with that server's. */
  rounds: number;
  keep: boolean;
  /** Directory for a V8 CPU profile of the server (node --cpu-prof), written when it stops. */
  cpuProfDir: string | null;
  /** Extra node flags for the server process, given in NODE_OPTIONS (e.g. "--max-old-space-size=192"); none by default. */
  serverNodeOptions: string[];
  /** A file that receives the server's stdout and stderr (e.g. with --server-node-options "… --trace-gc"). */
  serverLog: string | null;
  /** Outbox events of the webhook-backlog scenario (issue #16 item 7). */
  backlogEvents: number;
  /** Dead access tokens the janitor scenario seeds and removes (issue #17 item 4). */
  expiredTokens: number;
  /** Seconds of the mixed-load scenario (issue 17 item 9 describes three minutes). */
  mixedSeconds: number;
  /** Seconds of the overload scenario (1,000 connections over six surfaces). */
  overloadSeconds: number;
  /** A PostgreSQL URL (its server and credentials): the bench makes a database of its own there instead of a SQLite file. */
  postgresUrl: string | null;
  /** --stores: the store scenarios on one server per shared-state store (memory, postgres, redis), side by side. */
  stores: boolean;
  /**
   * A second server (issue 33): this build with a speed layer's switch (`--layer-off NODE_FRONT=off`), or another
   * checkout's build (`--other-build DIR`). Each selected scenario on the app runs again there, alternating round by
   * round with the app's run, and so does the overload.
   */
  second: SecondServer | null;
}

interface SecondServer {
  /** How rows and lines name it: the switch ("NODE_FRONT=off") or the other build ("build 9830374"). */
  label: string;
  /** Set on top of the app's environment (a layer's switch). */
  env: Record<string, string>;
  /** The root of another checkout, built, whose start script starts it; null: this build. */
  root: string | null;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const smoke = argv.includes("--smoke");
  // The smoke run checks that every scenario answers, not how fast: one second each (autocannon's shortest), with no
  // warm-up (issue 51 item 8: CI's time).
  const duration = Number(value("--duration") ?? (smoke ? 1 : 10));
  const connections = Number(value("--connections") ?? (smoke ? 8 : 64));
  if (!(duration > 0) || !(connections > 0)) throw new Error("--duration and --connections must be positive numbers");
  // Two in the smoke run: CI goes through the alternation without spending minutes on it.
  const rounds = Number(value("--rounds") ?? (smoke ? 2 : 3));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a whole number of at least 1");
  return {
    build: !argv.includes("--no-build"),
    smoke,
    durationSeconds: duration,
    warmupSeconds: smoke ? 0 : 2,
    connections,
    only: value("--only")?.split(",") ?? null,
    rounds,
    keep: argv.includes("--keep"),
    // None by default: the server runs as `npm start` runs it, with the heap flags scripts/start.sh derives.
    serverNodeOptions: (value("--server-node-options") ?? "").split(" ").filter(Boolean),
    serverLog: value("--server-log") ? path.resolve(value("--server-log")!) : null,
    // The mixed load and the overload keep 2 s in smoke runs: 1,000 connections take a while to open.
    mixedSeconds: Number(value("--mixed-duration") ?? (smoke ? 2 : 180)),
    overloadSeconds: Number(value("--overload-duration") ?? (smoke ? 2 : 30)),
    postgresUrl: value("--postgres") ?? null,
    stores: argv.includes("--stores"),
    second: secondServer(value("--layer-off"), value("--other-build")),
    // Smoke runs: enough that the background work is still going when the measured second begins, no more (CI's time).
    backlogEvents: Number(value("--backlog-events") ?? (smoke ? 500 : 10_000)),
    expiredTokens: Number(value("--expired-tokens") ?? (smoke ? 25_000 : 1_000_000)),
    cpuProfDir: argv.includes("--cpu-prof") ? path.resolve(value("--cpu-prof-dir") ?? path.join(ROOT, "bench", "results", "profiles")) : null,
  };
}

/** The second server of --layer-off NAME=value or --other-build DIR, or null. */
function secondServer(layerOff: string | undefined, otherBuild: string | undefined): SecondServer | null {
  if (layerOff !== undefined && otherBuild !== undefined) throw new Error("--layer-off and --other-build each start a second server: give one");
  if (layerOff !== undefined) {
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(layerOff);
    if (!match) throw new Error("--layer-off takes NAME=value (an environment variable of the server, e.g. NODE_FRONT=off)");
    return { label: `${match[1]}=${match[2]}`, env: { [match[1]!]: match[2]! }, root: null };
  }
  if (otherBuild === undefined) return null;
  const root = path.resolve(otherBuild);
  if (!fs.existsSync(path.join(root, ".next", "BUILD_ID")) || !fs.existsSync(path.join(root, "scripts", "start.sh"))) {
    throw new Error(`--other-build ${otherBuild}: not a built checkout (run npm install and npm run build there first)`);
  }
  const commit = spawnSync("git", ["-C", root, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim();
  return { label: `build ${commit || path.basename(root)}`, env: {}, root };
}

const options = parseOptions(process.argv.slice(2));
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);
const loadavg = (): string => os.loadavg()[0]!.toFixed(1);

// ---------------------------------------------------------------- processes

const children: ChildProcess[] = [];

/** Starts a long-running process in its own process group (so the whole tree can be stopped) and waits until `ready` answers. */
async function startProcess(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: () => Promise<boolean>,
  logFile: string | null = null,
  cwd: string = ROOT,
): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  let output = "";
  const log = logFile ? fs.createWriteStream(logFile) : null;
  const capture = (d: Buffer): void => {
    output = (output + d.toString()).slice(-4000);
    log?.write(d);
  };
  child.stdout?.on("data", capture);
  child.stderr?.on("data", capture);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited early (code ${child.exitCode}):\n${output}`);
    // A probe that never settles must not stall the run: each gets 5 s.
    const probe = Promise.race([ready().catch(() => false), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
    if (await probe) return child;
    if (Date.now() > deadline) throw new Error(`${name} did not answer within 90 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function stopAll(): void {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
process.on("exit", stopAll);

/** Stops every started process and waits (up to 15 s) until they are gone, so a CPU profile gets written. */
async function stopAndWait(): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  const exited = running.map((c) => new Promise<void>((resolve) => c.once("exit", () => resolve())));
  stopAll();
  const done = await Promise.race([Promise.all(exited).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
  if (done) return;
  for (const child of running) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return true;
}

// ---------------------------------------------------------------- the server, as npm start runs it

/** Flags node refuses in NODE_OPTIONS (--cpu-prof, V8's tracing flags such as --trace-gc): only node's command line takes them. */
function refusedInNodeOptions(flags: string[]): string[] {
  return flags.filter((flag) => !process.allowedNodeEnvironmentFlags.has(flag.split("=")[0]!));
}

/** The environment the server gets: the run's, with the running node first on PATH and --server-node-options in NODE_OPTIONS. */
function serverEnv(env: NodeJS.ProcessEnv, extraFlags: string[]): NodeJS.ProcessEnv {
  const nodeOptions = [env.NODE_OPTIONS ?? "", ...extraFlags].join(" ").trim();
  return {
    ...env,
    // scripts/start.sh runs the first `node` on PATH: the one running the bench.
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${env.PATH ?? ""}`,
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  };
}

/** The heap flags scripts/start.sh gives node for this environment (dist/heap-flags.mjs, lib/startup/heap.ts). */
function startHeapFlags(env: NodeJS.ProcessEnv): string[] {
  const run = spawnSync(process.execPath, [path.join(ROOT, "dist", "heap-flags.mjs")], { cwd: ROOT, env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`dist/heap-flags.mjs failed: ${run.stderr}`);
  return run.stdout.split(" ").filter(Boolean);
}

/**
 * How the server is started: `sh scripts/start.sh`, exactly what `npm start` runs (it execs node, so the child's pid
 * is the server's), with --server-node-options in NODE_OPTIONS. Node refuses --cpu-prof (and V8 tracing flags) in
 * NODE_OPTIONS, so with --cpu-prof, or such a flag in --server-node-options, the bench runs node itself instead, with
 * what scripts/start.sh would add (NODE_ENV, MALLOC_ARENA_MAX, its heap flags) plus those flags.
 */
function serverCommand(env: NodeJS.ProcessEnv, profileFlags: string[]): { command: string; args: string[]; env: NodeJS.ProcessEnv; label: string } {
  const refused = refusedInNodeOptions(options.serverNodeOptions);
  if (profileFlags.length === 0 && refused.length === 0) {
    return { command: "sh", args: [START_SCRIPT], env: serverEnv(env, options.serverNodeOptions), label: "scripts/start.sh (npm start)" };
  }
  const allowed = options.serverNodeOptions.filter((flag) => !refused.includes(flag));
  const direct = serverEnv(env, allowed);
  const flags = [...profileFlags, ...startHeapFlags(direct), ...refused];
  return {
    command: process.execPath,
    args: [...flags, SERVER_ENTRY],
    env: { ...direct, NODE_ENV: "production", MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? "2" },
    label: `node ${flags.join(" ")} dist/server.mjs (scripts/start.sh's environment and heap flags; node refuses ${[...profileFlags, ...refused].map((f) => f.split("=")[0]).join(", ")} in NODE_OPTIONS)`,
  };
}

/**
 * How another checkout's build starts: its own start script, with the runtime its npm scripts would pick (its
 * node_modules/.bin first on PATH, this checkout's runtime taken off), as `npm start` there would.
 */
function otherBuildCommand(root: string, env: NodeJS.ProcessEnv): { command: string; args: string[]; env: NodeJS.ProcessEnv; label: string } {
  if (refusedInNodeOptions(options.serverNodeOptions).length > 0) throw new Error("--other-build takes only flags node accepts in NODE_OPTIONS");
  const own = serverEnv(env, options.serverNodeOptions);
  const inThisCheckout = (entry: string): boolean => entry === path.dirname(process.execPath) || entry.startsWith(path.join(ROOT, "node_modules"));
  const rest = (env.PATH ?? "").split(path.delimiter).filter((entry) => entry && !inThisCheckout(entry));
  const otherEnv = { ...own, PATH: [path.join(root, "node_modules", ".bin"), ...rest].join(path.delimiter) };
  const runtime = spawnSync("node", ["--version"], { env: otherEnv, encoding: "utf8" }).stdout.trim().replace(/^v/, "");
  return { command: "sh", args: [path.join(root, "scripts", "start.sh")], env: otherEnv, label: `${root}'s scripts/start.sh under its runtime, Node ${runtime}` };
}

// ---------------------------------------------------------------- RSS of a process tree

function childrenOf(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = map.get(ppid) ?? [];
      list.push(Number(entry));
      map.set(ppid, list);
    } catch {
      // exited while we looked
    }
  }
  return map;
}

function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** A process and all its descendants. */
function treePids(root: number): number[] {
  const tree = childrenOf();
  const pids: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    pids.push(pid);
    stack.push(...(tree.get(pid) ?? []));
  }
  return pids;
}

/** Resident memory of a process and all its descendants, in bytes. */
function treeRss(root: number): number {
  return treePids(root).reduce((total, pid) => total + rssOf(pid), 0);
}

/** CPU time (user + system) used so far by one process, in clock ticks of 10 ms. */
function cpuTicksOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of proc(5))
  } catch {
    return 0; // exited
  }
}

/** CPU time (user + system) used so far by a process and its descendants, in milliseconds. */
function treeCpuMs(root: number): number {
  return treePids(root).reduce((ticks, pid) => ticks + cpuTicksOf(pid), 0) * 10;
}

/** Samples the tree's RSS every 200 ms until stopped; returns the peak. */
function sampleRss(root: number): { stop(): number } {
  let peak = treeRss(root);
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(root))), 200);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeRss(root));
    },
  };
}

/** Scrapes /metrics with BENCH_METRICS_TOKEN once a second (Prometheus scrapes every 15–60 s: a pessimistic rate). */
function scrapeEverySecond(origin: string): { stop(): { answered: number; failed: number } } {
  let answered = 0;
  let failed = 0;
  const timer = setInterval(() => {
    fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${BENCH_METRICS_TOKEN}` }, signal: AbortSignal.timeout(5000) })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.status === 200) answered += 1;
        else failed += 1;
      })
      .catch(() => (failed += 1));
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      return { answered, failed };
    },
  };
}

// ---------------------------------------------------------------- scenarios

/** "app-metrics": a second server, the same but with METRICS_TOKEN set and scraped every second (issue 17 item 3). */
type Target = "app" | "app-metrics" | "app-second" | "own-account-baseline" | "mcp-baseline" | "a2a-baseline";

/** The shared-state stores (lib/shared-state) the --stores run compares, the app's own first. */
const STORES = ["memory", "postgres", "redis"] as const;
type StoreName = (typeof STORES)[number];

/** The token of the "app-metrics" server; /metrics is scraped with it once a second while its scenarios run. */
const BENCH_METRICS_TOKEN = "bench-metrics-token-0123456789";

interface Scenario {
  name: string;
  target: Target;
  variants: RequestVariant[];
  expect: LoadJob["expect"];
  distinctForwardedFor?: boolean;
  /** Name of the scenario whose requests/s this one is compared with. */
  baseline?: string;
  /**
   * A plain scenario run right after this one: the ratio is to the mean of `baseline` (right before) and it.
   * Every scenario adds rows the next one works on and the machine is shared, so one baseline measured before
   * favours the baseline.
   */
  baselineAfter?: string;
  /** Connections for this scenario instead of --connections (latency without queueing). */
  connections?: number;
  /** Name of the scenario this one repeats on another server (its CPU per request is compared with it). */
  pairedWith?: string;
  /** Work the server does beside the load (bench/side-work.ts), started right before it. */
  sideWork?: () => SideWork;
  /** Runs in full runs only when --only names it (slow to seed); always in the smoke run. */
  optIn?: boolean;
  /**
   * Issue 52: DPoP reads, whose proofs the load generator makes before each run (a proof is used once, its iat must be
   * recent): `variants` then only warms the route up.
   */
  dpop?: Omit<DpopReads, "count">;
  /** Compared with a `baseline` on the same server round by round, alternating (--rounds), as with a bare server. */
  alternateWithBaseline?: boolean;
}

/** The DPoP reads' names (one per kind of key), and the bearer read they are compared with (issue 52: within 25 %). */
const DPOP_READS = { ES256: "DPoP own-account read (ES256)", Ed25519: "DPoP own-account read (Ed25519)" } as const;
const BEARER_READ = "own-account read";
/**
 * The hot paths weighed on each store: issue 50's budgets (`/ask`, MCP lookups), and issue 52's DPoP read (one replay
 * check per proof) with the bearer read it is compared with on the same store.
 */
const STORE_SCENARIOS = ["GET /ask", "MCP lookup_member", BEARER_READ, DPOP_READS.Ed25519];

/**
 * --layer-off, --other-build: each selected single-surface scenario on the app again on the second server, compared
 * round by round with the app's run (its `baseline`, alternating as a bare server's is).
 */
function secondScenarios(all: readonly Scenario[], second: SecondServer, selected: (name: string) => boolean): Scenario[] {
  return all
    .filter((scenario) => scenario.target === "app" && !scenario.sideWork && !scenario.optIn && scenario.connections === undefined && selected(scenario.name))
    .map((scenario) => ({ ...scenario, name: `${scenario.name} (${second.label})`, target: "app-second", baseline: scenario.name, baselineAfter: undefined }));
}

/** The operator scenarios (bench/side-work.ts): the exchange's load while the server does other work. */
export const BACKLOG_SCENARIO = "JWT-bearer exchange, webhook backlog draining";
export const JANITOR_SCENARIO = "JWT-bearer exchange, janitor removing expired tokens";
/** The plain exchange again right after each operator scenario: the other side of its bracket. */
const AFTER_BACKLOG = "JWT-bearer exchange, after the backlog";
const AFTER_JANITOR = "JWT-bearer exchange, after the janitor";

/** The extras the operator scenarios need: the server's environment (for seeding) and its cron secret. */
interface OperatorContext {
  env: NodeJS.ProcessEnv;
  origin: string;
  cronSecret: string;
}

/** Signing agents of the signed MCP scenario: each its own origin, so its own admission share (one agent holds a quarter of the public lane). */
const SIGNING_AGENTS = 16;

/**
 * Issue 44: Web Bot Auth agents (each a signed key directory on 127.0.0.1) whose MCP lookups are signed when the run
 * starts, 10 minutes valid, without a nonce (the draft allows it): autocannon sends each variant many times, and a
 * nonce would make every repeat a replay (refused, answered as unsigned, not what a signed request costs). So every
 * request is verified and counted under its agent: one Ed25519 verification against the cached directory. The
 * variants take the agents in turn: 64 connections of one agent would meet its admission share (a 429), as 64 of one
 * address would; the unsigned scenario's connections are as many addresses.
 */
async function startSigningAgent(): Promise<{ sign: (base: string, names: string[]) => Promise<RequestVariant[]>; close: () => Promise<void> }> {
  const { newAgentKey, signRequest, startDirectory } = await import("../tests/support/web-bot-agent");
  const agents = await Promise.all(
    Array.from({ length: SIGNING_AGENTS }, async () => {
      const key = await newAgentKey();
      return { key, directory: await startDirectory([key]) };
    }),
  );
  return {
    close: async () => void (await Promise.all(agents.map((agent) => agent.directory.close()))),
    sign: (base, names) =>
      Promise.all(
        names.map(async (name, i) => {
          const { key, directory } = agents[i % agents.length]!;
          const created = new Date();
          const signature = await signRequest(key, directory.origin, "POST", `${base}/mcp`, { created, expires: new Date(created.getTime() + 600_000), nonce: null });
          return {
            method: "POST" as const,
            path: "/mcp",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", ...signature },
            body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "lookup_member", arguments: { name_or_slug: name } } }),
          };
        }),
      ),
  };
}

function scenarios(fixtures: BenchFixtures, base: string, operator: OperatorContext, signedLookups: RequestVariant[] = []): Scenario[] {
  const bearer = (token: string): RequestVariant => ({ method: "GET", path: "/api/v1/agent/account", headers: { authorization: `Bearer ${token}` } });
  // Issue 52: the same reads with DPoP-bound tokens, each with a fresh proof (one signature check, one replay check).
  const dpopRead = (alg: keyof typeof DPOP_READS): Scenario => ({
    name: DPOP_READS[alg],
    target: "app",
    // Only the route's warm-up (a bound token sent as Bearer: a 401); the runs' variants are made with fresh proofs.
    variants: fixtures.dpop[alg].accessTokens.slice(0, 1).map(bearer),
    dpop: { ...fixtures.dpop[alg], alg, publicBase: base, path: "/api/v1/agent/account" },
    expect: { status: 200, bodyIncludes: '"account_id"' },
    baseline: BEARER_READ,
    alternateWithBaseline: true,
    pairedWith: BEARER_READ,
  });
  const valid = fixtures.accessTokens.map(bearer);
  // Well-formed but unknown tokens: the 401 path does the full hash-and-look-up work.
  const invalid = fixtures.accessTokens.slice(0, 200).map((t) => bearer(`aca_${t.slice(4).split("").reverse().join("")}`));
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const poll = fixtures.pendingClaimTokens.map<RequestVariant>((claimToken) => ({
    method: "POST",
    path: "/oauth2/token",
    headers: form,
    body: new URLSearchParams({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: claimToken }).toString(),
  }));
  const exchange = fixtures.assertions.map<RequestVariant>((assertion) => ({
    method: "POST",
    path: "/oauth2/token",
    headers: form,
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion, resource: `${base}/api` }).toString(),
  }));
  const ask = ASK_QUESTIONS.map<RequestVariant>((q) => ({ method: "GET", path: `/ask?query=${encodeURIComponent(q)}` }));
  // Every question different (a numbered variant), so no answer comes from the per-process answer cache.
  const askUncached = Array.from({ length: 20_000 }, (_, n) => ({
    method: "GET" as const,
    path: `/ask?query=${encodeURIComponent(`${ASK_QUESTIONS[n % ASK_QUESTIONS.length]} v${n}`)}`,
  }));
  const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
  const lookups = fixtures.publicNames.slice(0, 2000).map<RequestVariant>((name, i) => ({
    method: "POST",
    path: "/mcp",
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "lookup_member", arguments: { name_or_slug: name } } }),
  }));
  // The same lookups on MCP 2026-07-28: no handshake, the per-request envelope and the SEP-2243 headers.
  const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const modernHeaders = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "lookup_member",
  };
  const modernLookups = fixtures.publicNames.slice(0, 2000).map<RequestVariant>((name, i) => ({
    method: "POST",
    path: "/mcp",
    headers: modernHeaders,
    body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "lookup_member", arguments: { name_or_slug: name }, _meta: envelope } }),
  }));
  const a2a: RequestVariant[] = [
    {
      method: "POST",
      path: "/a2a",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", role: "user", messageId: "bench-stats", parts: [{ kind: "data", data: { skill: "get_community_stats", input: {} } }] } },
      }),
    },
  ];
  // A2A 1.0, as the 1.x SDK's client sends it (A2A-Version: 1.0, proto JSON): the same skill as the 0.3 scenario.
  const a2aV1: RequestVariant[] = [
    {
      method: "POST",
      path: "/a2a",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "bench-stats-v1", role: "ROLE_USER", parts: [{ data: { skill: "get_community_stats", input: {} }, mediaType: "application/json" }] } },
      }),
    },
  ];
  const batch: RequestVariant[] = [0, 1, 2].map((offset) => ({
    method: "POST",
    path: "/api/v1/batch",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      items: Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, operation: "docs.ask", arguments: { query: ASK_QUESTIONS[(i + offset) % ASK_QUESTIONS.length], top_k: 3 } })),
    }),
  }));
  return [
    { name: "baseline: own-account (node:http)", target: "own-account-baseline", variants: valid, expect: { status: 200, bodyIncludes: '"account_id"' } },
    { name: "baseline: own-account 401", target: "own-account-baseline", variants: invalid, expect: { status: 401 } },
    // The framework's own cost: a route handler that answers a constant JSON 404 (no database, no parsing).
    { name: "Next.js floor (constant JSON 404)", target: "app", variants: [{ method: "GET", path: "/.well-known/openid-configuration" }], expect: { status: 404 } },
    { name: "own-account read", target: "app", variants: valid, expect: { status: 200, bodyIncludes: '"account_id"' }, baseline: "baseline: own-account (node:http)" },
    // Issue 52: right after the bearer read, whose last run each then alternates with.
    dpopRead("ES256"),
    dpopRead("Ed25519"),
    { name: "own-account 401", target: "app", variants: invalid, expect: { status: 401, bodyIncludes: "invalid_token" }, baseline: "baseline: own-account 401" },
    // The metrics pair: the same requests on a server with METRICS_TOKEN set and scraped once a second.
    {
      name: "own-account read, METRICS_TOKEN set",
      target: "app-metrics",
      variants: valid,
      expect: { status: 200, bodyIncludes: '"account_id"' },
      pairedWith: "own-account read",
    },
    { name: "claim poll (pending)", target: "app", variants: poll, expect: { status: 400, bodyIncludes: '"authorization_pending"' } },
    { name: "JWT-bearer exchange", target: "app", variants: exchange, expect: { status: 200, bodyIncludes: '"access_token"' } },
    { name: "GET /ask", target: "app", variants: ask, expect: { status: 200, bodyIncludes: '"answers"' } },
    { name: "GET /ask, METRICS_TOKEN set", target: "app-metrics", variants: ask, expect: { status: 200, bodyIncludes: '"answers"' }, pairedWith: "GET /ask" },
    // One connection: the time /ask takes to answer, with no request queued behind another.
    { name: "GET /ask, 1 connection", target: "app", variants: ask, expect: { status: 200, bodyIncludes: '"answers"' }, connections: 1 },
    { name: "GET /ask, all questions new", target: "app", variants: askUncached, expect: { status: 200, bodyIncludes: '"answers"' } },
    { name: "baseline: MCP SDK lookup_member", target: "mcp-baseline", variants: lookups, expect: { status: 200, bodyIncludes: '"found":true' } },
    { name: "MCP lookup_member", target: "app", variants: lookups, expect: { status: 200, bodyIncludes: '"found":true' }, baseline: "baseline: MCP SDK lookup_member" },
    // Issue 44: the same lookups signed (Web Bot Auth), beside the unsigned figure.
    { name: "signed MCP lookup_member", target: "app", variants: signedLookups, expect: { status: 200, bodyIncludes: '"found":true' }, pairedWith: "MCP lookup_member" },
    { name: "baseline: MCP SDK tools/call (2026-07-28)", target: "mcp-baseline", variants: modernLookups, expect: { status: 200, bodyIncludes: '"found":true' } },
    {
      name: "MCP tools/call (2026-07-28)",
      target: "app",
      variants: modernLookups,
      expect: { status: 200, bodyIncludes: '"found":true' },
      baseline: "baseline: MCP SDK tools/call (2026-07-28)",
    },
    { name: "A2A get_community_stats", target: "app", variants: a2a, expect: { status: 200, bodyIncludes: '"completed"' } },
    { name: "baseline: A2A SDK SendMessage (1.0)", target: "a2a-baseline", variants: a2aV1, expect: { status: 200, bodyIncludes: '"TASK_STATE_COMPLETED"' } },
    {
      name: "A2A SendMessage (1.0)",
      target: "app",
      variants: a2aV1,
      expect: { status: 200, bodyIncludes: '"TASK_STATE_COMPLETED"' },
      baseline: "baseline: A2A SDK SendMessage (1.0)",
    },
    {
      name: "batch 10× docs.ask",
      target: "app",
      variants: batch,
      distinctForwardedFor: true,
      expect: { status: 200, bodyIncludes: '"status":"ok"', bodyExcludes: ['"status":"error"', '"status":"skipped"'] },
    },
    // Issue #16 item 7: the same exchange load while the server's loop drains a webhook backlog.
    {
      name: BACKLOG_SCENARIO,
      target: "app",
      variants: exchange,
      expect: { status: 200, bodyIncludes: '"access_token"' },
      baseline: "JWT-bearer exchange",
      baselineAfter: AFTER_BACKLOG,
      sideWork: () => webhookBacklog(operator.env, options.backlogEvents, options.smoke ? 60_000 : 300_000),
    },
    { name: AFTER_BACKLOG, target: "app", variants: exchange, expect: { status: 200, bodyIncludes: '"access_token"' } },
    // Issue #17 item 4: the same exchange load while the janitor removes the seeded dead tokens.
    {
      name: JANITOR_SCENARIO,
      target: "app",
      variants: exchange,
      expect: { status: 200, bodyIncludes: '"access_token"' },
      baseline: AFTER_BACKLOG,
      baselineAfter: AFTER_JANITOR,
      sideWork: () => janitorMillion(String(operator.env.DATABASE_URL), operator.origin, operator.cronSecret, options.expiredTokens, options.smoke ? 60_000 : 600_000),
      optIn: true,
    },
    { name: AFTER_JANITOR, target: "app", variants: exchange, expect: { status: 200, bodyIncludes: '"access_token"' }, optIn: true },
  ];
}

// ---------------------------------------------------------------- budget (issue 7)

/** The data issue 7 names for every run: a run on other data is not the measurement asked for. */
const REQUIRED_DATA = { members: 10_000, delegations: 1_000, documents: 500 } as const;

/** What makes a run unfit to report, whatever its speed: other data, a scenario without answers, a ratio missing. */
/** The name prefix of the overload's part rows (partRows). */
const OVERLOAD_PART_PREFIX = "  overload: ";

function harnessProblems(rows: Row[], all: Scenario[], counts: BenchFixtures["counts"], baselinesRan: boolean): string[] {
  const problems: string[] = [];
  for (const [name, required] of Object.entries(REQUIRED_DATA)) {
    const seeded = counts[name as keyof typeof REQUIRED_DATA];
    if (seeded !== required) problems.push(`data: ${seeded} ${name}, not ${required}`);
  }
  for (const row of rows) {
    // Under the overload a part that got no answer in the window is a finding (its connections waited to be accepted or
    // served: a budget line below), not a broken harness.
    if (row.result.requests === 0 && !row.name.startsWith(OVERLOAD_PART_PREFIX)) problems.push(`${row.name}: no answers measured`);
    const baseline = all.find((scenario) => scenario.name === row.name)?.baseline;
    if (baseline && baselinesRan && row.ratio === null) problems.push(`${row.name}: no ratio to "${baseline}"`);
  }
  return problems;
}

function budgetChecks(rows: Row[], servicePeak: number, connections: number): { check: string; ok: boolean }[] {
  const find = (name: string) => rows.find((r) => r.name === name);
  const checks: { check: string; ok: boolean }[] = [];
  const own = find("own-account read");
  if (own) {
    checks.push({ check: `own-account read ≥ 50% of baseline req/s (${pct(own.ratio)})`, ok: (own.ratio ?? 0) >= 0.5 });
    checks.push({ check: `own-account read p99 ≤ 20 ms (${own.result.p99} ms)`, ok: own.result.p99 <= 20 });
  }
  for (const name of ["claim poll (pending)", "JWT-bearer exchange"]) {
    const row = find(name);
    if (!row) continue;
    checks.push({ check: `${name} ≥ 1,500 req/s (${Math.round(row.result.requestsPerSecond)})`, ok: row.result.requestsPerSecond >= 1500 });
    checks.push({ check: `${name} p99 ≤ 50 ms (${row.result.p99} ms)`, ok: row.result.p99 <= 50 });
  }
  for (const name of STORE_SCENARIOS) {
    const redis = find(`${name}, store redis`);
    if (redis) checks.push({ check: `${name}, store redis ≥ 90% of store memory req/s (${pct(redis.ratio)})`, ok: (redis.ratio ?? 0) >= 0.9 });
    const postgres = find(`${name}, store postgres`);
    if (postgres) checks.push({ check: `${name}, store postgres ≥ 75% of store memory req/s (${pct(postgres.ratio)})`, ok: (postgres.ratio ?? 0) >= 0.75 });
  }
  // Issue 52: with the memory and redis stores, a DPoP read within 25 % of a bearer read; postgres's cost is stated.
  for (const store of STORES) {
    const bearer = find(`${BEARER_READ}, store ${store}`);
    const dpop = find(`${DPOP_READS.Ed25519}, store ${store}`);
    if (!bearer || !dpop || store === "postgres") continue;
    const ratio = dpop.result.requestsPerSecond / bearer.result.requestsPerSecond;
    checks.push({ check: `${DPOP_READS.Ed25519}, store ${store} ≥ 75% of the bearer read's req/s on it (${pct(ratio)})`, ok: ratio >= 0.75 });
  }
  const bearerRead = find(BEARER_READ);
  for (const name of Object.values(DPOP_READS)) {
    const dpop = find(name);
    if (!dpop) continue;
    checks.push({ check: `${name} ≥ 75% of the bearer read's req/s (${pct(dpop.ratio)})`, ok: (dpop.ratio ?? 0) >= 0.75 });
    if (bearerRead) {
      const cpu = bearerRead.cpuMsPerRequest / dpop.cpuMsPerRequest;
      checks.push({ check: `${name} ≥ 75% of the bearer read's requests per CPU second (${pct(cpu)})`, ok: cpu >= 0.75 });
    }
  }
  const mcp = find("MCP lookup_member");
  if (mcp) checks.push({ check: `MCP lookup_member ≥ 70% of baseline req/s (${pct(mcp.ratio)})`, ok: (mcp.ratio ?? 0) >= 0.7 });
  const modern = find("MCP tools/call (2026-07-28)");
  if (modern) checks.push({ check: `MCP tools/call (2026-07-28) ≥ 80% of baseline req/s (${pct(modern.ratio)})`, ok: (modern.ratio ?? 0) >= 0.8 });
  const a2aV1 = find("A2A SendMessage (1.0)");
  if (a2aV1) checks.push({ check: `A2A SendMessage (1.0) ≥ 70% of baseline req/s (${pct(a2aV1.ratio)})`, ok: (a2aV1.ratio ?? 0) >= 0.7 });
  const ask = find("GET /ask");
  if (ask) checks.push({ check: `/ask p50 ≤ 5 ms at ${connections} connections (${ask.result.p50} ms)`, ok: ask.result.p50 <= 5 });
  const askAlone = find("GET /ask, 1 connection");
  if (askAlone) checks.push({ check: `/ask p50 ≤ 5 ms at 1 connection (${askAlone.result.p50} ms)`, ok: askAlone.result.p50 <= 5 });
  checks.push({ check: `service peak RSS < 512 MiB, README's figure (${mb(servicePeak)})`, ok: servicePeak < DOCUMENTED_PEAK_RSS });
  const errors = countErrors(rows);
  checks.push({ check: `no errors (${errors})`, ok: errors === 0 });
  return checks;
}

/** Unexpected answers in all rows; the mixed and overload totals are left out (their parts' rows hold the same). */
function countErrors(rows: Row[]): number {
  return rows.reduce((n, r) => n + (r.name === MIXED_NAME || r.name === OVERLOAD_NAME ? 0 : r.result.errors), 0);
}

/**
 * How many proofs a DPoP run needs: more than it can send in its warm-up and measurement. A DPoP read does the bearer
 * read's work and more, so the bearer read's first run bounds its rate, with a margin for the machine's drift between
 * runs: × 3, as the smoke's one-second runs beside the browser flows drifted past × 1.4 (a proof sent twice is a
 * replay, refused and counted as an error); 12,000/s without a bearer run.
 */
function dpopProofCount(rows: readonly Row[]): number {
  const bearer = rows.find((row) => row.name === BEARER_READ || row.name.startsWith(`${BEARER_READ}, store `))?.result.requestsPerSecond;
  const rate = bearer !== undefined && bearer > 0 ? bearer * 3 : 12_000;
  return Math.min(250_000, Math.ceil(rate * (options.warmupSeconds + options.durationSeconds)) + 1_000);
}

const mb = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MB`;
const mib = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MiB`;
const pct = (ratio: number | null): string => (ratio === null ? "—" : `${Math.round(ratio * 100)}%`);
/** The share of a run's answers that admission control refused (a shed is an answer: a 503 sent at once). */
const shedShare = (result: LoadResult): string => `${((100 * result.sheds) / Math.max(1, result.requests)).toFixed(1)} %`;

function table(rows: Row[]): string {
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "errors", "shed", "vs baseline", "CPU ms/req", "peak RSS", "load"];
  const body = rows.map((r) => [
    r.name,
    String(Math.round(r.result.requestsPerSecond)),
    String(r.result.p50),
    String(r.result.p99),
    `${r.result.errors}/${r.result.requests}`,
    r.result.sheds > 0 ? `${r.result.sheds} (${shedShare(r.result)})` : "0",
    pct(r.ratio),
    Number.isFinite(r.cpuMsPerRequest) ? r.cpuMsPerRequest.toFixed(2) : "—",
    mb(r.peakRss),
    r.load,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `:${"-".repeat(w + 1)}` : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...body.map(line)].join("\n");
}

// ---------------------------------------------------------------- mixed load (issue 17 item 9)

/** The four request kinds of the operator's mixed load, each from one of the scenarios above, all at once. */
const MIXED_PARTS = ["own-account read", "GET /ask, all questions new", "MCP lookup_member", "A2A get_community_stats"] as const;
const MIXED_CONNECTIONS_EACH = 8;
const MIXED_NAME = `mixed load (${MIXED_PARTS.length} × ${MIXED_CONNECTIONS_EACH} connections)`;
/**
 * The peak RSS README's memory paragraph documents for the server's process tree under any load (issue 32): a budget
 * line for the whole run, the mixed load and the overload, not an assertion. Memory is bounded by admission control.
 */
const DOCUMENTED_PEAK_RSS = 512 * 1024 * 1024;

interface MixedOutcome {
  rows: Row[];
  peakRss: number;
  /** RSS once the load has stopped and the server sat idle a while: a plateau, or memory given back. */
  restRss: number;
  seconds: number;
}

/** A part of a load that runs beside others: what one load generator sends and expects. */
interface LoadPart {
  variants: RequestVariant[];
  expect: Scenario["expect"];
  distinctForwardedFor?: Scenario["distinctForwardedFor"];
}

/**
 * Runs every part at once (one load generator each) against the target, sheds expected; the results, the target's
 * peak RSS meanwhile and its CPU per answered request.
 */
async function runPartsTogether(
  parts: readonly LoadPart[],
  connectionsOf: (index: number) => number,
  target: { origin: string; pid: number },
  dir: string,
  label: string,
  seconds: number,
): Promise<{ results: LoadResult[]; peakRss: number; cpuMsPerRequest: number }> {
  const sampler = sampleRss(target.pid);
  const cpuBefore = treeCpuMs(target.pid);
  const results = await Promise.all(
    parts.map((part, i) =>
      runLoad(
        {
          origin: target.origin,
          connections: connectionsOf(i),
          durationSeconds: seconds,
          warmupSeconds: options.warmupSeconds,
          timeoutSeconds: options.smoke ? 60 : 10,
          variants: part.variants,
          distinctForwardedFor: part.distinctForwardedFor,
          expect: part.expect,
          shedsExpected: true,
        },
        path.join(dir, `${label}-job-${i}.json`),
      ),
    ),
  );
  const peakRss = sampler.stop();
  const answered = results.reduce((n, r) => n + r.requests + r.warmupRequests, 0);
  return { results, peakRss, cpuMsPerRequest: (treeCpuMs(target.pid) - cpuBefore) / Math.max(1, answered) };
}

/** Runs the four parts concurrently (one load generator each) against the app; one row per part, one for them all. */
async function runMixed(all: Scenario[], target: { origin: string; pid: number }, dir: string, seconds: number, restSeconds: number): Promise<MixedOutcome> {
  const parts = MIXED_PARTS.map((name) => {
    const scenario = all.find((s) => s.name === name);
    if (!scenario) throw new Error(`mixed load: no scenario named "${name}"`);
    return scenario;
  });
  // Under the operator's mixed load a 503 of admission control is the server protecting itself: a shed.
  const { results, peakRss, cpuMsPerRequest } = await runPartsTogether(parts, () => MIXED_CONNECTIONS_EACH, target, dir, "mixed", seconds);
  await new Promise((r) => setTimeout(r, restSeconds * 1000));
  const restRss = treeRss(target.pid);
  const rows = partRows(
    "mixed",
    parts.map((part) => part.name),
    results,
    peakRss,
  );
  rows.unshift({ name: MIXED_NAME, result: totalOf(results), peakRss, load: loadavg(), ratio: null, cpuMsPerRequest, rounds: [] });
  return { rows, peakRss, restRss, seconds };
}

/** One row per part of a concurrent load (mixed, overload): the server's CPU is shared, so only the total has CPU/req. */
function partRows(prefix: string, names: string[], results: LoadResult[], peakRss: number): Row[] {
  return names.map((name, i) => ({ name: `  ${prefix}: ${name}`, result: results[i]!, peakRss, load: loadavg(), ratio: null, cpuMsPerRequest: Number.NaN, rounds: [] }));
}

/** The parts of a concurrent load together: requests, sheds and errors summed, p50 and p99 the highest part's. */
function totalOf(results: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number): number => results.reduce((n, r) => n + pick(r), 0);
  return {
    requests: sum((r) => r.requests),
    warmupRequests: sum((r) => r.warmupRequests),
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    sheds: sum((r) => r.sheds),
    errorSamples: results.flatMap((r) => r.errorSamples),
  };
}

// ---------------------------------------------------------------- overload (issue 32 item 6)

const OVERLOAD_CONNECTIONS = 1000;
const OVERLOAD_NAME = `overload (${OVERLOAD_CONNECTIONS.toLocaleString("en-US")} connections, mixed)`;
/** The systemd unit's MemoryMax (deploy/agent-gate.service): the overload's peak RSS is compared with it. */
const MEMORY_MAX = 1024 * 1024 * 1024;
/** Its parts: one surface of each class but pages, from the scenarios above, plus docs pages. */
const OVERLOAD_PARTS = ["own-account read", "JWT-bearer exchange", "GET /ask", "MCP lookup_member", "A2A SendMessage (1.0)"] as const;
const OVERLOAD_DOCS = "docs pages";
const DOCS_PAGES = ["getting-started", "mcp-server", "own-account-api", "limits", "bench-doc-001", "bench-doc-250"].map<RequestVariant>((slug) => ({
  method: "GET",
  path: `/docs/${slug}`,
}));

interface OverloadOutcome {
  rows: Row[];
  peakRss: number;
  seconds: number;
  /** Sheds per class of work (lib/admission classify() of each part's path). */
  shedsByClass: Record<string, number>;
  /** Whether the server answered /healthz and an /ask afterwards, with the same process id: what is wrong, or null. */
  liveness: string | null;
}

/**
 * 1,000 connections at once, spread evenly over six surfaces (one load generator each): far beyond the admission
 * bounds, so much of it is shed. The server must keep answering, stay one process, and keep its memory bounded.
 */
async function runOverload(all: Scenario[], app: ChildProcess, target: { origin: string; pid: number }, dir: string, seconds: number): Promise<OverloadOutcome> {
  const parts = OVERLOAD_PARTS.map((name) => {
    const scenario = all.find((s) => s.name === name);
    if (!scenario) throw new Error(`overload: no scenario named "${name}"`);
    return { name: scenario.name, variants: scenario.variants, expect: scenario.expect, distinctForwardedFor: scenario.distinctForwardedFor };
  });
  parts.push({ name: OVERLOAD_DOCS, variants: DOCS_PAGES, expect: { status: 200 }, distinctForwardedFor: undefined });
  // The docs pages are in no other scenario: load them once, as every other route was before measuring.
  for (const page of DOCS_PAGES) {
    const res = await fetch(`${target.origin}${page.path}`, { signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`overload: ${page.path} answered ${res.status}`);
  }
  // Spread evenly: the first parts get one connection more when 1,000 does not divide.
  const connections = parts.map((_, i) => Math.floor((OVERLOAD_CONNECTIONS + parts.length - 1 - i) / parts.length));
  const { results, peakRss, cpuMsPerRequest } = await runPartsTogether(parts, (i) => connections[i]!, target, dir, "overload", seconds);
  const liveness = await stillAlive(app, target);
  const shedsByClass: Record<string, number> = {};
  parts.forEach((part, i) => {
    const workClass = routeOfTarget(part.variants[0]!.path).workClass ?? "none";
    shedsByClass[workClass] = (shedsByClass[workClass] ?? 0) + results[i]!.sheds;
  });
  const rows = partRows(
    "overload",
    parts.map((part, i) => `${part.name} (${connections[i]})`),
    results,
    peakRss,
  );
  rows.unshift({ name: OVERLOAD_NAME, result: totalOf(results), peakRss, load: loadavg(), ratio: null, cpuMsPerRequest, rounds: [] });
  return { rows, peakRss, seconds, shedsByClass, liveness };
}

/** After the overload: the same process (no exit, its pid in /proc) answers /healthz and a real request. */
async function stillAlive(app: ChildProcess, target: { origin: string; pid: number }): Promise<string | null> {
  if (app.exitCode !== null || app.signalCode !== null) return `the server exited (${app.exitCode ?? app.signalCode})`;
  if (app.pid !== target.pid || !fs.existsSync(`/proc/${target.pid}`)) return `process ${target.pid} is gone`;
  for (const probe of ["/healthz", "/ask?query=after%20the%20overload"]) {
    try {
      const res = await fetch(`${target.origin}${probe}`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status !== 200) return `${probe} answered ${res.status}`;
    } catch (error) {
      return `${probe}: ${(error as Error).message}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------- PostgreSQL (--postgres)

/** A database of the run's own on the server `adminUrl` names, migrated by the project's own migrations; dropped afterwards. */
async function createPostgresDatabase(adminUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = async (sql: string): Promise<void> => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  log(`PostgreSQL database ${name}`);
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

// ---------------------------------------------------------------- --stores (issue 50)

/** A redis-server of the run's, and the app's server three times more on its database: one per shared-state store. */
async function startStoreServers(
  appEnv: NodeJS.ProcessEnv,
  profile: (folder: string) => string[],
): Promise<{ targets: Record<StoreName, { origin: string; pid: number }>; redis: string }> {
  const { startRedis } = await import("../tests/support/redis");
  const redis = await startRedis();
  process.on("exit", () => void redis.stop());
  const start = async (store: StoreName): Promise<{ origin: string; pid: number }> => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = { ...appEnv, SHARED_STATE: store, ...(store === "redis" ? { REDIS_URL: redis.url } : {}), PORT: String(port), HOSTNAME: "127.0.0.1" };
    const command = serverCommand(env, profile(`store-${store}`));
    const child = await startProcess(`server (store ${store})`, command.command, command.args, command.env, () => answers(`${origin}/ask?query=ready`));
    return { origin, pid: child.pid! };
  };
  return { targets: { memory: await start("memory"), postgres: await start("postgres"), redis: await start("redis") }, redis: `redis-server on port ${redis.port}` };
}

// ---------------------------------------------------------------- main

/** Called when the load generator enters a phase (bench/load.mts prints a line for each). */
type PhaseListener = (phase: "warm-up" | "measure") => void;

async function runLoad(job: LoadJob, file: string, onPhase?: PhaseListener): Promise<LoadResult> {
  fs.writeFileSync(file, JSON.stringify(job));
  return new Promise((resolve, reject) => {
    // Node strips load.mts's types itself: no loader to start for each scenario (about a second each).
    const child = spawn(process.execPath, [path.join(ROOT, "bench", "load.mts"), file], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const seen = new Set<string>();
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      for (const phase of ["warm-up", "measure"] as const) {
        if (seen.has(phase) || !out.includes(`{"phase":"${phase}"}\n`)) continue;
        seen.add(phase);
        onPhase?.(phase);
      }
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult);
      } catch (error) {
        reject(error);
      }
    });
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  log(
    `${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; ${options.smoke ? "smoke" : "full"} run, ${options.connections} connections, ${options.durationSeconds} s per scenario`,
  );
  if (options.build) {
    log("npm run build…");
    const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
    if (build.status !== 0) throw new Error("npm run build failed");
  } else if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID")) || !fs.existsSync(SERVER_ENTRY)) {
    throw new Error("--no-build needs an existing build: run `npm run build` first");
  }

  const dir = path.join(ROOT, ".tmp", `bench-${Date.now()}`);
  fs.mkdirSync(dir, { recursive: true });
  if (options.stores && !options.postgresUrl) throw new Error("--stores compares the stores on one PostgreSQL database: give --postgres <url> too");
  const postgres = options.postgresUrl ? await createPostgresDatabase(options.postgresUrl, `agent_gate_bench_${process.pid}_${Date.now()}`) : null;
  const databaseUrl = postgres?.url ?? `file:${path.join(dir, "bench.db")}`;
  const contentDir = path.join(dir, "content");
  const fixturesFile = path.join(dir, "fixtures.json");
  try {
    migrate(databaseUrl, true);
    const port = await freePort();
    const base = `http://localhost:${port}`;
    // One fresh Ed25519 key for the run: the seed signs the assertions with it, the server verifies with it.
    const signingKeys = JSON.stringify([generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" })]);
    const cronSecret = randomBytes(24).toString("base64url");
    const appEnv: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      BASE_URL: base,
      DATABASE_URL: databaseUrl,
      CONTENT_DIR: contentDir,
      SIGNING_KEYS: signingKeys,
      RELEASE_MODE: "public",
      // Every request carries an X-Forwarded-For (bench/load.mts): each connection is one client with its own address (the
      // batch scenario gives each request its own, so the 10-per-minute limit is not what it measures). The in-memory
      // budgets stay on, and are counted, with allowances no run reaches (bench/README.md, "Budgets"), so their cost is
      // in every figure; admission's per-caller shares apply as in production.
      TRUSTED_PROXY: "1",
      ...BENCH_BUDGETS,
      // The webhook-backlog scenario's receiver listens on 127.0.0.1 (no endpoint exists before it).
      WEBHOOK_ALLOW_PRIVATE: "1",
      // The janitor scenario runs the janitor's passes through its cron route.
      CRON_SECRET: cronSecret,
      // The signed MCP scenario's key directory listens on 127.0.0.1 (issue 44).
      AGENT_DIRECTORY_ALLOW_PRIVATE: "1",
    };

    log("seeding 10,000 members, 1,000 delegations with tokens and assertions, pending claims, 500 documents…");
    // Each claim token may be polled once every 5 s: N tokens carry N / 5 polls per second (smoke: 4,000; full: 16,000,
    // above what a fast 2-core machine polls: at 40,000 tokens one answered 9,400–10,500 polls/s, the excess slow_down).
    const pending = options.smoke ? 20_000 : 80_000;
    const seed = spawnSync(TSX, [path.join("bench", "seed.ts"), fixturesFile, contentDir, "--pending", String(pending)], {
      cwd: ROOT,
      env: appEnv,
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (seed.status !== 0) throw new Error("seeding failed");
    const fixtures = JSON.parse(fs.readFileSync(fixturesFile, "utf8")) as BenchFixtures;
    // Only when an --only entry names it: "JWT-bearer exchange" is part of its name too, and its seeding is slow.
    const runsJanitor = !postgres && (options.smoke || (options.only?.some((o) => o.toLowerCase().includes("janitor")) ?? false));
    if (runsJanitor) {
      log(`seeding ${options.expiredTokens.toLocaleString("en-US")} expired access tokens for the janitor scenario…`);
      const seededAt = Date.now();
      const expired = spawnSync(TSX, [path.join("bench", "seed-ops.ts"), "expired-tokens", String(options.expiredTokens)], {
        cwd: ROOT,
        env: appEnv,
        stdio: ["ignore", "inherit", "inherit"],
      });
      if (expired.status !== 0) throw new Error("seeding the expired tokens failed");
      log(`  seeded in ${((Date.now() - seededAt) / 1000).toFixed(1)} s`);
    }

    // Issue 44: an agent with its key directory in this process (gone when the run exits), for the signed MCP scenario.
    const signingAgent = await startSigningAgent();
    const all = scenarios(fixtures, base, { env: appEnv, origin: `http://127.0.0.1:${port}`, cronSecret }, await signingAgent.sign(base, fixtures.publicNames.slice(0, 2000)));
    const selected = (name: string): boolean => !options.only || options.only.some((o) => name.toLowerCase().includes(o.toLowerCase()));
    const second = options.second;
    if (second) all.push(...secondScenarios(all, second, selected));
    // The metrics pair is a measurement, not a harness check: smoke runs leave it (and its second server) out.
    const wantsMetricsServer = !options.smoke && all.some((scenario) => scenario.target === "app-metrics" && selected(scenario.name));

    log(`server on ${base}…`);
    // With --cpu-prof the baselines (and --stores's servers, as store-memory, store-postgres, store-redis) are profiled
    // too, each into a folder named after it, so the two sides of a ratio can be compared. (Node's default file names:
    // each thread, e.g. tsx's loader or the checkpoint worker, writes its own.)
    const profile = (baseline?: string): string[] =>
      options.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${baseline ? path.join(options.cpuProfDir, baseline) : options.cpuProfDir}`] : [];
    const server = serverCommand({ ...appEnv, PORT: String(port), HOSTNAME: "127.0.0.1" }, profile());
    const app = await startProcess("server", server.command, server.args, server.env, () => answers(`http://127.0.0.1:${port}/ask?query=ready`), options.serverLog);
    // `node --import tsx`, not the tsx CLI: one process per baseline, so its RSS is its own. They read the SQLite
    // file directly, so a PostgreSQL run has none (and no ratios).
    const startBaseline = async (label: string, file: "own-account" | "mcp" | "a2a"): Promise<{ origin: string; pid: number } | undefined> => {
      if (postgres) return undefined;
      const baselinePort = await freePort();
      const origin = `http://127.0.0.1:${baselinePort}`;
      const child = await startProcess(
        label,
        process.execPath,
        [...profile(`${file}-baseline`), "--import", "tsx", path.join("bench", "baselines", `${file}.ts`)],
        { ...appEnv, PORT: String(baselinePort) },
        () => answers(`${origin}/`),
      );
      return { origin, pid: child.pid! };
    };
    const ownBaseline = await startBaseline("own-account baseline", "own-account");
    const mcpBaseline = await startBaseline("MCP baseline", "mcp");
    const a2aBaseline = await startBaseline("A2A baseline", "a2a");
    const metricsPort = wantsMetricsServer ? await freePort() : 0;
    // The same server on the same database, with METRICS_TOKEN set: the process collectors run and /metrics answers.
    const metricsApp = wantsMetricsServer
      ? await (async () => {
          const metricsServer = serverCommand({ ...appEnv, METRICS_TOKEN: BENCH_METRICS_TOKEN, PORT: String(metricsPort), HOSTNAME: "127.0.0.1" }, []);
          return startProcess("server with METRICS_TOKEN", metricsServer.command, metricsServer.args, metricsServer.env, () =>
            answers(`http://127.0.0.1:${metricsPort}/ask?query=ready`),
          );
        })()
      : null;
    // The second server on the same database: one speed layer switched off (--layer-off), or another build (--other-build).
    const secondPort = second ? await freePort() : 0;
    const secondApp = second
      ? await (async () => {
          const env = { ...appEnv, ...second.env, PORT: String(secondPort), HOSTNAME: "127.0.0.1" };
          const command = second.root ? otherBuildCommand(second.root, env) : serverCommand(env, []);
          const child = await startProcess(
            `server (${second.label})`,
            command.command,
            command.args,
            command.env,
            () => answers(`http://127.0.0.1:${secondPort}/ask?query=ready`),
            null,
            second.root ?? ROOT,
          );
          return { child, description: `${second.label}: ${command.label}${second.root ? "" : `, with ${second.label}`}` };
        })()
      : null;
    // --stores: three more servers on the same database, one per store (a redis-server of the run's for the third), alike
    // in everything else (the app's other scenarios would leave its caches unlike theirs).
    const storeServers = options.stores ? await startStoreServers(appEnv, profile) : null;
    const targets: Record<Target, { origin: string; pid: number } | undefined> = {
      app: { origin: `http://127.0.0.1:${port}`, pid: app.pid! },
      "app-second": secondApp ? { origin: `http://127.0.0.1:${secondPort}`, pid: secondApp.child.pid! } : undefined,
      "app-metrics": metricsApp ? { origin: `http://127.0.0.1:${metricsPort}`, pid: metricsApp.pid! } : undefined,
      "own-account-baseline": ownBaseline,
      "mcp-baseline": mcpBaseline,
      "a2a-baseline": a2aBaseline,
    };

    // Load every route once (route chunks, the Prisma client, the key import) so no scenario pays the cold start.
    for (const scenario of all) {
      const origin = targets[scenario.target]?.origin;
      if (origin === undefined) continue;
      const variant = scenario.variants[scenario.variants.length - 1]!;
      const res = await fetch(`${origin}${variant.path}`, {
        method: variant.method,
        headers: variant.headers,
        body: variant.body,
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
    }

    const rows: Row[] = [];
    /** The baseline's runs each alternateWithBaseline scenario alternated with, by its name. */
    const pairedBaseRounds = new Map<string, Round[]>();
    const sideProblems: string[] = [];
    let servicePeak = treeRss(app.pid!);
    /** One run of a scenario on its target: its load, the server's peak RSS and CPU, and its side work's notes. */
    const measure = async (scenario: Scenario, target: { origin: string; pid: number }): Promise<Round> => {
      const sideWork = scenario.sideWork?.();
      await sideWork?.prepare();
      const sampler = sampleRss(target.pid);
      const scraper = scenario.target === "app-metrics" ? scrapeEverySecond(target.origin) : null;
      const cpuBefore = treeCpuMs(target.pid);
      const result = await runLoad(
        {
          origin: target.origin,
          connections: scenario.connections ?? options.connections,
          durationSeconds: options.durationSeconds,
          // Work beside the load starts with the warm-up (a backlog, the janitor): it gets one in smoke runs too.
          warmupSeconds: scenario.sideWork ? Math.max(1, options.warmupSeconds) : options.warmupSeconds,
          // The smoke run proves the harness on a busy CI machine: a slow answer is not an error there.
          timeoutSeconds: options.smoke ? 60 : 10,
          variants: scenario.variants,
          distinctForwardedFor: scenario.distinctForwardedFor,
          expect: scenario.expect,
          ...(scenario.dpop ? { dpop: { ...scenario.dpop, count: dpopProofCount(rows) } } : {}),
        },
        path.join(dir, "job.json"),
        (phase) => (phase === "warm-up" ? sideWork?.start() : sideWork?.measure()),
      );
      const peakRss = sampler.stop();
      const scrapes = scraper?.stop();
      if (scrapes) log(`  /metrics scraped ${scrapes.answered} times (${scrapes.failed} failed)`);
      // Includes the warm-up: CPU per request is measured over every request the server answered.
      const cpuMs = treeCpuMs(target.pid) - cpuBefore;
      const side = await sideWork?.finish();
      for (const note of side?.notes ?? []) log(`  ${note}`);
      sideProblems.push(...(side?.problems ?? []));
      if (scenario.target === "app") servicePeak = Math.max(servicePeak, peakRss);
      for (const sample of result.errorSamples) log(`  unexpected: ${sample}`);
      return { result, peakRss, cpuMs, load: loadavg(), notes: side?.notes };
    };
    for (const scenario of all) {
      // --stores measures these on every store below, alternating.
      if (storeServers) continue;
      // A selected scenario brings its baseline along, so its ratio is always printed.
      if (!selected(scenario.name) && !all.some((other) => (other.baseline === scenario.name || other.baselineAfter === scenario.name) && selected(other.name))) continue;
      if (scenario.optIn && !runsJanitor) continue;
      // The operator scenarios' side work reads and writes the SQLite file directly.
      if (postgres && scenario.sideWork) continue;
      const target = targets[scenario.target];
      if (target === undefined) continue;
      log(`${scenario.name}…`);
      const row = rowOf(scenario.name, [await measure(scenario, target)]);
      rows.push(row);
      const baseScenario = all.find((candidate) => candidate.name === scenario.baseline);
      const baseRow = rows.find((r) => r.name === scenario.baseline);
      const baseTarget = baseScenario ? targets[baseScenario.target] : undefined;
      // A ratio to a bare server alternates with it (--rounds): the machine's speed drifts between two windows
      // of ten seconds by more than the goals' margins.
      if (baseScenario && baseRow && baseTarget && (baseScenario.target !== scenario.target || scenario.alternateWithBaseline)) {
        for (let round = 2; round <= options.rounds; round++) {
          log(`${baseScenario.name}, round ${round}…`);
          baseRow.rounds.push(await measure(baseScenario, baseTarget));
          log(`${scenario.name}, round ${round}…`);
          row.rounds.push(await measure(scenario, target));
        }
        // A row already compared with a bare server keeps that ratio when a second server's run adds rounds to it.
        const keptRatio = baseRow.ratio;
        Object.assign(baseRow, rowOf(baseRow.name, baseRow.rounds), { ratio: keptRatio });
        Object.assign(row, rowOf(row.name, row.rounds));
      }
      if (baseRow && baseRow.result.requestsPerSecond > 0) row.ratio = row.result.requestsPerSecond / baseRow.result.requestsPerSecond;
      // Against a baseline on the same server, only the baseline's runs alternated with this one's count (it has others).
      if (baseRow && scenario.alternateWithBaseline) {
        const paired = baseRow.rounds.slice(-row.rounds.length);
        pairedBaseRounds.set(row.name, paired);
        row.ratio = row.result.requestsPerSecond / rowOf(baseRow.name, paired).result.requestsPerSecond;
      }
    }
    // The operator scenarios' brackets: now that the plain run after each exists, the ratio is to the mean.
    for (const row of rows) {
      const scenario = all.find((candidate) => candidate.name === row.name);
      const before = rows.find((r) => r.name === scenario?.baseline)?.result.requestsPerSecond ?? 0;
      const after = rows.find((r) => r.name === scenario?.baselineAfter)?.result.requestsPerSecond ?? 0;
      if (before > 0 && after > 0) row.ratio = row.result.requestsPerSecond / ((before + after) / 2);
    }
    // --stores: each store scenario on the three servers, round by round in turn (the order reversed every other round).
    const storeLines: string[] = [];
    for (const name of storeServers ? STORE_SCENARIOS.filter(selected) : []) {
      const scenario = all.find((candidate) => candidate.name === name)!;
      const byStore = new Map<StoreName, Round[]>(STORES.map((store) => [store, []]));
      for (let round = 1; round <= options.rounds; round++) {
        for (const store of round % 2 === 1 ? STORES : [...STORES].reverse()) {
          log(`${name}, store ${store}, round ${round}…`);
          const target = storeServers!.targets[store];
          byStore.get(store)!.push(await measure(scenario, target));
        }
      }
      const memory = rowOf(`${name}, store memory`, byStore.get("memory")!);
      rows.push(memory);
      const parts = [`memory ${Math.round(memory.result.requestsPerSecond)} req/s, p99 ${memory.result.p99} ms, ${memory.cpuMsPerRequest.toFixed(3)} ms CPU/req`];
      for (const store of ["postgres", "redis"] as const) {
        const row = rowOf(`${name}, store ${store}`, byStore.get(store)!);
        row.ratio = row.result.requestsPerSecond / memory.result.requestsPerSecond;
        rows.push(row);
        const each = row.rounds.map((r, i) => pct(r.result.requestsPerSecond / memory.rounds[i]!.result.requestsPerSecond));
        parts.push(
          `${store} ${Math.round(row.result.requestsPerSecond)} req/s (${pct(row.ratio)} of memory; rounds ${each.join(", ")}), p99 ${row.result.p99} ms, ${row.cpuMsPerRequest.toFixed(3)} ms CPU/req`,
        );
      }
      storeLines.push(`stores: ${name}: ${parts.join("; ")}`);
    }
    if (storeServers) {
      const onEach = STORES.flatMap((store) => {
        const bearer = rows.find((row) => row.name === `${BEARER_READ}, store ${store}`);
        const dpop = rows.find((row) => row.name === `${DPOP_READS.Ed25519}, store ${store}`);
        return bearer && dpop ? [`${store} ${pct(dpop.result.requestsPerSecond / bearer.result.requestsPerSecond)}`] : [];
      });
      if (onEach.length) storeLines.push(`stores: ${DPOP_READS.Ed25519} / ${BEARER_READ} on each store: ${onEach.join(", ")}`);
    }
    let mixed: MixedOutcome | null = null;
    if (selected(MIXED_NAME) && !storeServers) {
      log(`${MIXED_NAME}, ${options.mixedSeconds} s…`);
      mixed = await runMixed(all, targets.app!, dir, options.mixedSeconds, options.smoke ? 1 : 10);
      rows.push(...mixed.rows);
      servicePeak = Math.max(servicePeak, mixed.peakRss);
      for (const sample of mixed.rows[0]!.result.errorSamples) log(`  unexpected: ${sample}`);
    }
    let overload: OverloadOutcome | null = null;
    // Its name says "mixed" too: `--only mixed` means the mixed load alone.
    const overloadSelected =
      !storeServers && (!options.only || options.only.some((o) => OVERLOAD_NAME.toLowerCase().includes(o.toLowerCase()) && !MIXED_NAME.toLowerCase().includes(o.toLowerCase())));
    /** With a second server, the overload on each, alternating (the app first in odd rounds). */
    const overloadLaps: { server: "app" | "second"; outcome: OverloadOutcome }[] = [];
    if (overloadSelected) {
      const other = second && secondApp && targets["app-second"] ? { app: secondApp.child, target: targets["app-second"] } : null;
      const laps = other ? options.rounds : 1;
      for (let lap = 0; lap < laps; lap++) {
        const order = other ? (lap % 2 === 0 ? (["app", "second"] as const) : (["second", "app"] as const)) : (["app"] as const);
        for (const which of order) {
          const [server, target] = which === "app" ? [app, targets.app!] : [other!.app, other!.target];
          const label = which === "app" ? "" : ` (${second!.label})`;
          log(`${OVERLOAD_NAME}${label}, ${options.overloadSeconds} s${other ? `, round ${lap + 1}` : ""}…`);
          const outcome = await runOverload(all, server, target, dir, options.overloadSeconds);
          overloadLaps.push({ server: which, outcome });
          for (const sample of outcome.rows[0]!.result.errorSamples) log(`  unexpected: ${sample}`);
          if (outcome.liveness) log(`  after the overload: ${outcome.liveness}`);
          // The table shows the first lap of each server; the comparison line below takes all of them.
          if (overloadLaps.filter((l) => l.server === which).length === 1) {
            rows.push(...outcome.rows.map((row) => ({ ...row, name: `${row.name}${label}` })));
            if (which === "app") overload = outcome;
          }
        }
      }
    }

    console.log(
      `\nAgent Gate bench — ${new Date().toISOString()}, ${os.cpus().length} CPUs, ${options.connections} connections, ${options.durationSeconds} s per scenario${options.smoke ? " (smoke)" : ""}`,
    );
    const heap = startHeapFlags(server.env).join(" ");
    const nodeOptions = server.env.NODE_OPTIONS ? `, NODE_OPTIONS="${server.env.NODE_OPTIONS}"` : "";
    console.log(`server: ${server.label}, heap flags ${heap || "none"}${nodeOptions}, TRUSTED_PROXY=1, ${postgres ? "PostgreSQL" : "SQLite"}, Node ${process.versions.node}`);
    if (secondApp) console.log(`second server: ${secondApp.description}`);
    if (storeServers)
      console.log(`stores: three servers as the one above on its database, with SHARED_STATE=memory, SHARED_STATE=postgres and SHARED_STATE=redis (${storeServers.redis})`);
    console.log(
      `data: ${fixtures.counts.members} members, ${fixtures.counts.delegations} active delegations, ${fixtures.counts.pending} pending claims, ${fixtures.counts.documents} generated documents\n`,
    );
    console.log(table(rows));
    for (const row of rows) {
      const base = rows.find((r) => r.name === all.find((scenario) => scenario.name === row.name)?.baseline);
      if (!base || row.rounds.length < 2 || base.rounds.length < row.rounds.length) continue;
      // A baseline on the same server has runs of its own (and other scenarios' alternations): the ones it alternated with.
      const paired = pairedBaseRounds.get(row.name) ?? base.rounds;
      const each = row.rounds.map((round, i) => pct(round.result.requestsPerSecond / paired[i]!.result.requestsPerSecond));
      console.log(`rounds: ${row.name}, ${each.join(", ")} of "${base.name}" round by round (alternating runs); the table's ratio is of their means`);
    }
    for (const line of storeLines) console.log(line);
    for (const row of rows) {
      const pairedWith = all.find((scenario) => scenario.name === row.name)?.pairedWith;
      const other = pairedWith ? rows.find((r) => r.name === pairedWith) : undefined;
      if (!other) continue;
      const change = (100 * (row.cpuMsPerRequest - other.cpuMsPerRequest)) / other.cpuMsPerRequest;
      console.log(
        `CPU pair: ${other.name} ${other.cpuMsPerRequest.toFixed(3)} → ${row.name} ${row.cpuMsPerRequest.toFixed(3)} ms CPU/req (${change >= 0 ? "+" : ""}${change.toFixed(1)} %)`,
      );
    }
    // The two servers' words in the comparison lines: with and without the layer, or this build and the other.
    const [appWord, secondWord] = second?.root ? ["this build", second.label] : ["with", "without"];
    const comparison = second ? `${second.root ? "builds" : "layer off"} (${second.label})` : "";
    for (const row of rows) {
      const scenario = all.find((candidate) => candidate.name === row.name);
      if (scenario?.target !== "app-second") continue;
      const onApp = rows.find((r) => r.name === scenario.baseline);
      if (!onApp || row.result.requestsPerSecond === 0) continue;
      console.log(
        `${comparison}: ${onApp.name}: ${appWord} ${Math.round(onApp.result.requestsPerSecond)} req/s p99 ${onApp.result.p99} ms, ${secondWord} ${Math.round(row.result.requestsPerSecond)} req/s p99 ${row.result.p99} ms: ${appWord}/${secondWord} ${pct(onApp.result.requestsPerSecond / row.result.requestsPerSecond)} req/s, ${pct(row.result.p99 / Math.max(onApp.result.p99, 0.5))} p99 ${secondWord}/${appWord}`,
      );
    }
    if (second && overloadLaps.some((l) => l.server === "second")) {
      // Each lap's total, and the own-account reads' p99 (the requests that must keep answering under a burst).
      const summary = (which: "app" | "second"): string => {
        const laps = overloadLaps.filter((l) => l.server === which).map((l) => l.outcome);
        const mean = (pick: (o: OverloadOutcome) => number): number => laps.reduce((n, o) => n + pick(o), 0) / laps.length;
        const ownAccount = (o: OverloadOutcome): number => o.rows.find((row) => row.name.includes("own-account read"))?.result.p99 ?? Number.NaN;
        return `${Math.round(mean((o) => o.rows[0]!.result.requestsPerSecond))} req/s, p99 ${Math.round(mean((o) => o.rows[0]!.result.p99))} ms, own-account p99 ${Math.round(mean(ownAccount))} ms, ${Math.round(mean((o) => o.rows[0]!.result.sheds))} shed (mean of ${laps.length})`;
      };
      console.log(`${comparison}: ${OVERLOAD_NAME}: ${appWord} ${summary("app")}; ${secondWord} ${summary("second")}`);
    }
    console.log(
      `\nservice peak RSS (server process tree): ${mb(servicePeak)}; "CPU ms/req" = server CPU time (user + system) per answered request, warm-up included; "load" = 1-minute load average when the scenario ended`,
    );
    if (mixed) {
      const total = mixed.rows[0]!.result;
      console.log(
        `${MIXED_NAME}, ${mixed.seconds} s: peak RSS ${mib(mixed.peakRss)} (server process tree), ${mib(mixed.restRss)} after ${options.smoke ? 1 : 10} s idle; ${total.sheds} shed (${shedShare(total)} of ${total.requests} answers); "CPU ms/req" of its first row = all four parts`,
      );
    }
    if (overload) {
      const total = overload.rows[0]!.result;
      const byClass = Object.entries(overload.shedsByClass)
        .map(([workClass, n]) => `${workClass} ${n}`)
        .join(", ");
      console.log(
        `${OVERLOAD_NAME}, ${overload.seconds} s: ${Math.round(total.requestsPerSecond)} answers/s, ${Math.round((total.requests - total.sheds) / overload.seconds)}/s served, p99 ${total.p99} ms (highest part's); ${total.sheds} shed (${shedShare(total)}; by class: ${byClass}); peak RSS ${mib(overload.peakRss)} (server process tree, ${overload.peakRss < MEMORY_MAX ? "under" : "OVER"} the unit's MemoryMax of 1 GiB); ${overload.liveness ? `server NOT alive afterwards: ${overload.liveness}` : `server alive afterwards, same pid ${targets.app!.pid}`}`,
      );
    }
    for (const row of rows) for (const note of row.notes ?? []) console.log(`${row.name}: ${note}`);
    const checks = budgetChecks(rows, servicePeak, options.connections);
    if (mixed) checks.push({ check: `mixed load peak RSS < 512 MiB, README's figure (${mib(mixed.peakRss)})`, ok: mixed.peakRss < DOCUMENTED_PEAK_RSS });
    if (overload) {
      const starved = rows.filter((row) => row.name.startsWith(OVERLOAD_PART_PREFIX) && row.result.requests === 0).map((row) => row.name.trim());
      checks.push({ check: `overload: every part answered within the window${starved.length ? ` (none for ${starved.join(", ")})` : ""}`, ok: starved.length === 0 });
    }
    if (overload) checks.push({ check: `overload peak RSS < 512 MiB, README's figure (${mib(overload.peakRss)})`, ok: overload.peakRss < DOCUMENTED_PEAK_RSS });
    if (!options.smoke) {
      console.log("\nbudget (2 cores, 64 connections):");
      for (const c of checks) console.log(`  ${c.ok ? "ok  " : "MISS"} ${c.check}`);
    }
    const resultsDir = path.join(ROOT, "bench", "results");
    fs.mkdirSync(resultsDir, { recursive: true });
    fs.writeFileSync(
      path.join(resultsDir, options.smoke ? "last-smoke.json" : "last.json"),
      JSON.stringify({ at: new Date().toISOString(), options, loadavg: os.loadavg(), servicePeak, mixed, overload, rows, checks }, null, 2),
    );
    log(`done in ${Math.round((Date.now() - started) / 1000)} s`);
    const problems = [...harnessProblems(rows, all, fixtures.counts, !postgres), ...sideProblems];
    if (overload?.liveness) problems.push(`after the overload: ${overload.liveness}`);
    for (const problem of problems) console.error(`harness: ${problem}`);
    const errors = countErrors(rows);
    return errors > 0 || problems.length > 0 ? 1 : 0;
  } finally {
    await stopAndWait();
    if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
    if (!options.keep) await postgres?.drop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
