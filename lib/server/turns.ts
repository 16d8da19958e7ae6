// Event-loop turns for CPU-heavy work. Since libuv 1.45 (Node 20) a listening socket accepts one connection per
// event-loop iteration (libuv PR #3696). An iteration that runs every ready request to completion lasts as long as
// all of them together: with dozens of searches queued an iteration lasts a second or more, so a busy server admits
// about one new connection per iteration and its requests wait many seconds. Heavy work therefore takes a turn: the
// queue starts a few jobs per iteration, in arrival order (as many as keep an iteration a few milliseconds long: one
// search, dozens of cached answers), which admits new connections at the pace work is done and serves every waiting
// request in order.

// The queue is lib/admission's TurnQueue, which also starts no job in an iteration that accepted a connection: under a
// burst, waiting connections are taken (and probes answered) before the burst's work. It always runs (bench/README.md
// "Speed layers": 4.4 times the answers under overload, +41 % on /ask).
import { TurnQueue } from "@/lib/admission/turn-queue";
import { processSingleton } from "@/lib/registry";

export { TurnQueue, type Scheduler } from "@/lib/admission/turn-queue";

/** The process's one queue: every heavy request shares it, so turns are taken in arrival order. */
const globalForTurns = processSingleton<{ agentGateTurns?: TurnQueue }>("server.turns", () => ({}));

/** The process's queue. */
export function turns(): TurnQueue {
  // One queue per process although the module is bundled twice (server.ts's bundle and Next's routes): lib/registry.
  globalForTurns.agentGateTurns ??= new TurnQueue();
  return globalForTurns.agentGateTurns;
}
