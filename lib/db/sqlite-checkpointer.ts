// SQLite checkpoints off the event loop (issue 7, bench/README.md "What changed"). In WAL mode a commit only
// appends to the log (synced off the Node thread before it is answered: lib/db/sql/wal-sync.ts). SQLite's
// automatic checkpoint (every 1,000 pages) then copies the log into the database and fsyncs it inside whichever
// commit crosses the mark, with the one Node thread blocked for the copy and the fsyncs — it set the p99 of every
// write path. Under npm start (server.ts) a worker thread with its own connection checkpoints passively every 50 ms
// instead (it never blocks the app's writers; bench/README.md "Speed layers: verdicts" weighed it against SQLite's own).
//
// The log restarts from its beginning only when a write begins after a checkpoint has copied all of it;
// under sustained writes the worker never quite catches up. So once the log passes RESTART_PAGES the worker
// asks the app to hold its connection: the app takes the connection gate (lib/db/sql/gate.ts) between two
// of its transactions, without blocking the event loop, the worker copies the few pages written since its
// last pass, and the gate is released; the app's next write restarts the log. The hold lasts one short
// checkpoint (mostly its two fsyncs); the app connection's own automatic
// checkpoint, raised to BACKSTOP_PAGES, only steps in if that ever fails (it blocks the event loop for the
// whole copy and both fsyncs). With no worker
// running (CLI, tests, other hosts) nothing changes.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { BACKSTOP_PAGES, checkpointerRunsFor, globalForCheckpointer } from "./sqlite-checkpoint-state";

export { BACKSTOP_PAGES, checkpointerRunsFor };

/** Past this many pages of log (~16 MB) the worker asks for a hold to let the log restart. */
export const RESTART_PAGES = 4000;

/** Messages between the worker (lib/db/sqlite-checkpoint-worker.ts) and the app; `failed`: a failure for the app's log. */
export type WorkerMessage = "hold" | "restartable" | { failed: string; message: string };
export type AppMessage = "held";

/** What the worker is started with. */
export interface CheckpointWorkerData {
  file: string;
  intervalMs: number;
  restartPages: number;
}

/**
 * Starts the worker's module, which sits next to this one: the bundled .mjs beside the production bundle
 * (npm run build puts both in dist/), the TypeScript source anywhere else (tests, tsx scripts), where the
 * thread first registers tsx.
 */
function newWorker(workerData: CheckpointWorkerData): Worker {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith(".ts")) return new Worker(path.join(path.dirname(here), "sqlite-checkpoint-worker.mjs"), { workerData });
  const source = path.join(path.dirname(here), "sqlite-checkpoint-worker.ts");
  return new Worker(`require("tsx/cjs/api").register(); require(${JSON.stringify(source)});`, { eval: true, workerData });
}

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  intervalMs?: number;
  restartPages?: number;
  /** Takes the app's connection once no statement or transaction runs on it; resolves with its release. */
  holdConnection?: () => Promise<(() => void) | null>;
  /**
   * Told of each failure of the worker (`what` failed, with SQLite's text) and of the worker's end by an uncaught error
   * (`what`: "the worker"); server.ts logs them (this layer has no logger). None: they go unreported.
   */
  onFailure?: (what: string, message: string) => void;
}

/** The longest the app holds its connection for the worker, whatever happens to the worker. */
const HOLD_LIMIT_MS = 1000;

/** Starts the worker for this SQLite file (once per process); it never keeps the process alive. */
export function startSqliteCheckpointer(file: string, options: CheckpointerOptions = {}): Checkpointer {
  const running = globalForCheckpointer.agentGateCheckpointer;
  if (running?.file === file) return { stop: () => stopCheckpointer() };
  const workerData: CheckpointWorkerData = { file, intervalMs: options.intervalMs ?? 50, restartPages: options.restartPages ?? RESTART_PAGES };
  const worker = newWorker(workerData);
  worker.unref();
  let endHold: (() => void) | null = null;
  worker.on("message", (message: WorkerMessage) => {
    if (message === "restartable") return endHold?.();
    if (message === "hold") return void holdFor(worker, options.holdConnection, (end) => (endHold = end));
    options.onFailure?.(message.failed, message.message);
  });
  const forget = (): void => {
    if (globalForCheckpointer.agentGateCheckpointer?.worker === worker) globalForCheckpointer.agentGateCheckpointer = undefined;
  };
  // The worker only ends by itself when it cannot open the file (it reported why): the backstop checkpoints.
  worker.on("exit", () => {
    endHold?.();
    forget();
  });
  worker.on("error", (error) => {
    // The backstop still checkpoints; only the pauses come back.
    options.onFailure?.("the worker", error.message.slice(0, 200));
    forget();
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
