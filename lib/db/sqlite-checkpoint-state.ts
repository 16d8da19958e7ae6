// What the app connection (./connection.ts) needs to know of the checkpoint worker (./sqlite-checkpointer.ts),
// kept apart from the worker's start-up so that the route bundles, which open the connection, never bundle
// the Worker itself (only the server entry starts it).
import type { Worker } from "node:worker_threads";
import { processSingleton } from "@/lib/registry";

/** The app connection's wal_autocheckpoint while the worker runs: a backstop well above RESTART_PAGES. */
export const BACKSTOP_PAGES = 10000;

/** The running worker of this process, in lib/registry: Next bundles the server entry and the routes apart. */
export const globalForCheckpointer = processSingleton<{ agentGateCheckpointer?: { file: string; worker: Worker } }>("db.sqlite-checkpointer", () => ({}));

/** True while a worker checkpoints this file (the app connection then raises its automatic checkpoint). */
export function checkpointerRunsFor(file: string): boolean {
  return globalForCheckpointer.agentGateCheckpointer?.file === file;
}
