// SQLite checkpoints off the event loop (issue 7, bench/README.md "What changed"). In WAL mode with
// synchronous = NORMAL a commit only appends to the log. SQLite's automatic checkpoint (every 1,000 pages)
// then copies the log into the database and fsyncs it inside whichever commit crosses the mark: 15–20 ms on
// this machine's disk, with the one Node thread blocked — it set the p99 of every write path. Under
// `next start` a worker thread with its own connection checkpoints passively every 50 ms instead (it never
// blocks the app's writers), and the app connection's automatic checkpoint becomes a backstop at
// BACKSTOP_PAGES: the log can only restart once a checkpoint has caught up completely, which under sustained
// writes happens at the backstop. With no worker running (CLI, tests, other hosts) nothing changes.
import { Worker } from "node:worker_threads";

/** The app connection's wal_autocheckpoint while the worker runs: at most ~20 MB of log. */
export const BACKSTOP_PAGES = 5000;

// Plain CommonJS for an eval worker: resolved from node_modules at run time (better-sqlite3 is external).
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const Database = require("better-sqlite3");
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
const tick = () => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch (error) { /* busy: the next tick retries */ }
  setTimeout(tick, workerData.intervalMs);
};
tick();
`;

const globalForCheckpointer = globalThis as unknown as { agentGateCheckpointer?: { file: string; worker: Worker } };

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts the worker for this SQLite file (once per process); it never keeps the process alive. */
export function startSqliteCheckpointer(file: string, intervalMs = 50): Checkpointer {
  const running = globalForCheckpointer.agentGateCheckpointer;
  if (running?.file === file) return { stop: () => stopCheckpointer() };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, intervalMs } });
  worker.unref();
  worker.on("error", (error) => {
    // The backstop still checkpoints; only the pauses come back.
    console.error(`[agent-gate] SQLite checkpoint worker stopped: ${error.message.slice(0, 200)}`);
    if (globalForCheckpointer.agentGateCheckpointer?.worker === worker) globalForCheckpointer.agentGateCheckpointer = undefined;
  });
  globalForCheckpointer.agentGateCheckpointer = { file, worker };
  return { stop: () => stopCheckpointer() };
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
