// The checkpoint worker thread's code (started by lib/db/sqlite-checkpointer.ts, which explains the design):
// its own connection checkpoints passively every `intervalMs`, and once the log passes `restartPages` it
// asks the app to hold its connection ("hold"), copies the rest while nothing is written ("held") and
// answers "restartable". It never dies of an exception — a failure is reported to the app (which logs it) and the
// next tick tries again; should it stop anyway, the app connection's own automatic checkpoint remains the backstop.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import type { AppMessage, CheckpointWorkerData, WorkerMessage } from "./sqlite-checkpointer";

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** Reports a failure to the app, which logs it: what failed and SQLite's own text (it has no secret), cut short. */
function reportFailure(what: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  parentPort?.postMessage({ failed: what, message: message.slice(0, 200) } satisfies WorkerMessage);
}

/** The worker's own connection: it never waits for a lock (busy: the next tick retries). */
export function openWorkerDatabase(file: string): Database.Database {
  const db = new Database(file, { fileMustExist: true });
  db.pragma("busy_timeout = 0");
  // Stated, not left to the build's default: a checkpoint syncs the log before it copies it and the database after.
  db.pragma("synchronous = FULL");
  return db;
}

function run(port: NonNullable<typeof parentPort>, data: CheckpointWorkerData): void {
  let db: Database.Database;
  try {
    db = openWorkerDatabase(data.file);
  } catch (error) {
    // Nothing to checkpoint with: the thread ends (no listener keeps it) and the backstop does the work.
    reportFailure("opening the database", error);
    return;
  }

  /** A failure other than "busy" is logged once, not at every tick, until a checkpoint succeeds again. */
  let failing = false;
  const checkpoint = (): CheckpointResult | null => {
    try {
      const result = (db.pragma("wal_checkpoint(PASSIVE)") as CheckpointResult[])[0];
      failing = false;
      if (result && result.log >= 0) return result;
      // -1: this connection has not seen the file in WAL mode yet (the app switched it after the worker opened
      // it, as on a fresh database); a read transaction makes the connection notice, the next tick checkpoints.
      db.pragma("schema_version");
      return null;
    } catch (error) {
      // Busy: the next tick retries, quietly.
      if ((error as { code?: unknown }).code === "SQLITE_BUSY") return null;
      if (!failing) reportFailure("a checkpoint", error);
      failing = true;
      return null;
    }
  };

  let lastLog = 0;
  let nextHoldAt = data.restartPages;
  const post = (message: WorkerMessage): void => port.postMessage(message);
  const later = (): void => void setTimeout(tick, data.intervalMs);

  function tick(): void {
    try {
      const result = checkpoint();
      if (result) {
        if (result.log < lastLog) nextHoldAt = data.restartPages; // the log restarted
        lastLog = result.log;
      }
      if (!result || result.log < nextHoldAt) return later();
      // Two more passes copy what the app committed during the pass before, so that the hold's pass, during
      // which the app writes nothing, has little left: the app's last commit group and two fsyncs.
      for (let pass = 0; pass < 2; pass++) checkpoint();
      // Should the log not restart (a reader in another process still uses it), ask again only once it has
      // grown as much again, not at every tick.
      nextHoldAt = lastLog + data.restartPages;
      post("hold");
    } catch (error) {
      reportFailure("a tick", error);
      later();
    }
  }

  port.on("message", (message: AppMessage) => {
    if (message !== "held") return;
    try {
      checkpoint(); // nothing is written meanwhile: this one copies the rest of the log
      post("restartable");
    } catch (error) {
      reportFailure("the held pass", error);
    }
    later();
  });
  tick();
}

if (parentPort) run(parentPort, workerData as CheckpointWorkerData);
