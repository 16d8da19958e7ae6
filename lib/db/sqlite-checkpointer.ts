// SQLite checkpoints off the event loop (issue 7, bench/README.md "What changed"). In WAL mode with
// synchronous = NORMAL a commit only appends to the log. SQLite's automatic checkpoint (every 1,000 pages)
// then copies the log into the database and fsyncs it inside whichever commit crosses the mark: 15–20 ms on
// this machine's disk, with the one Node thread blocked — it set the p99 of every write path. Under
// `next start` a worker thread with its own connection checkpoints passively every 50 ms instead (it never
// blocks the app's writers).
//
// The log restarts from its beginning only when a write begins after a checkpoint has copied all of it;
// under sustained writes the worker never quite catches up. So once the log passes RESTART_PAGES the worker
// asks the app to hold its connection: the app takes the connection gate (lib/db/sql/gate.ts) between two
// of its transactions, without blocking the event loop, the worker copies the few pages written since its
// last pass, and the gate is released; the app's next write restarts the log. The hold lasts one short
// checkpoint (6–18 ms on this machine's disk, mostly its two fsyncs); the app connection's own automatic
// checkpoint, raised to BACKSTOP_PAGES, only steps in if that ever fails (it blocks the event loop for the
// whole copy and both fsyncs). With no worker
// running (CLI, tests, other hosts) nothing changes.
import { Worker } from "node:worker_threads";

/** Past this many pages of log (~16 MB) the worker asks for a hold to let the log restart. */
export const RESTART_PAGES = 4000;

/** The app connection's wal_autocheckpoint while the worker runs: a backstop well above RESTART_PAGES. */
export const BACKSTOP_PAGES = 10000;

/** Messages between the worker and the app. */
type WorkerMessage = "hold" | "restartable";
type AppMessage = "held";

// Plain CommonJS for an eval worker: resolved from node_modules at run time (better-sqlite3 is external).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
const checkpoint = () => {
  try {
    const result = db.pragma("wal_checkpoint(PASSIVE)")[0];
    if (result.log >= 0) return result;
    // -1: this connection has not seen the file in WAL mode yet (the app switched it after the worker opened
    // it, as on a fresh database); a read transaction makes the connection notice, the next tick checkpoints.
    db.pragma("schema_version");
    return null;
  } catch (error) {
    return null; // busy: the next tick retries
  }
};
let lastLog = 0;
let nextHoldAt = workerData.restartPages;
const tick = () => {
  const result = checkpoint();
  if (result) {
    if (result.log < lastLog) nextHoldAt = workerData.restartPages; // the log restarted
    lastLog = result.log;
  }
  if (!result || result.log < nextHoldAt) return void setTimeout(tick, workerData.intervalMs);
  // Two more passes copy what the app committed during the pass before, so that the hold's pass, during
  // which the app writes nothing, has little left: the app's last commit group and two fsyncs.
  for (let pass = 0; pass < 2; pass++) checkpoint();
  // Should the log not restart (a reader in another process still uses it), ask again only once it has
  // grown as much again, not at every tick.
  nextHoldAt = lastLog + workerData.restartPages;
  parentPort.postMessage("hold");
};
parentPort.on("message", (message) => {
  if (message !== "held") return;
  checkpoint(); // nothing is written meanwhile: this one copies the rest of the log
  parentPort.postMessage("restartable");
  setTimeout(tick, workerData.intervalMs);
});
tick();
`;

const globalForCheckpointer = globalThis as unknown as { agentGateCheckpointer?: { file: string; worker: Worker } };

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  intervalMs?: number;
  restartPages?: number;
  /** Takes the app's connection once no statement or transaction runs on it; resolves with its release. */
  holdConnection?: () => Promise<(() => void) | null>;
}

/** The longest the app holds its connection for the worker, whatever happens to the worker. */
const HOLD_LIMIT_MS = 1000;

/** Starts the worker for this SQLite file (once per process); it never keeps the process alive. */
export function startSqliteCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const running = globalForCheckpointer.agentGateCheckpointer;
  if (running?.file === file) return { stop: () => stopCheckpointer() };
  const workerData = { file, intervalMs: options.intervalMs ?? 50, restartPages: options.restartPages ?? RESTART_PAGES };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  worker.unref();
  let endHold: (() => void) | null = null;
  worker.on("message", (message: WorkerMessage) => {
    if (message === "restartable") return endHold?.();
    if (message === "hold") void holdFor(worker, options.holdConnection, (end) => (endHold = end));
  });
  worker.on("exit", () => endHold?.());
  worker.on("error", (error) => {
    // The backstop still checkpoints; only the pauses come back.
    console.error(`[agent-gate] SQLite checkpoint worker stopped: ${error.message.slice(0, 200)}`);
    if (globalForCheckpointer.agentGateCheckpointer?.worker === worker) globalForCheckpointer.agentGateCheckpointer = undefined;
  });
  globalForCheckpointer.agentGateCheckpointer = { file, worker };
  return { stop: () => stopCheckpointer() };
}

/** Holds the app's connection for the worker's last pass; `onHeld` receives what ends the hold (idempotent). */
async function holdFor(worker: Worker, holdConnection: CheckpointerOptions["holdConnection"], onHeld: (end: () => void) => void): Promise<void> {
  let release: (() => void) | null = null;
  try {
    release = (await holdConnection?.()) ?? null;
  } catch {
    // No hold this time: the worker's pass still copies what it can, and the backstop remains.
  }
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(limit);
    release?.();
  };
  const limit = setTimeout(end, HOLD_LIMIT_MS);
  limit.unref();
  onHeld(end);
  worker.postMessage("held" satisfies AppMessage);
}

async function stopCheckpointer(): Promise<void> {
  const running = globalForCheckpointer.agentGateCheckpointer;
  globalForCheckpointer.agentGateCheckpointer = undefined;
  await running?.worker.terminate();
}

/** True while a worker checkpoints this file (the app connection then raises its automatic checkpoint). */
export function checkpointerRunsFor(file: string): boolean {
  return globalForCheckpointer.agentGateCheckpointer?.file === file;
}
