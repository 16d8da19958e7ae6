// The event-loop turns and the accept-aware pacer (lib/server/turns.ts, lib/admission/turn-queue.ts) as server.ts wires them:
// one queue from turns() for admission and the listener. The listener hands no request to Next within its request
// event, whatever its class (each waits for a turn), and a new /ask question waits for a turn before its search. The
// layer always runs: bench/README.md "Speed layers" has what it was weighed against (issue 51 removed its switch).
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { getConfig } from "@/lib/config";
import { turns } from "@/lib/server/turns";
import { requestListener } from "@/lib/server/request-listener";
import * as admission from "@/lib/admission";
import { askReply } from "@/lib/docs/responses";

/** A request and its response as the listener sees them (no socket: the listener is called directly). */
function exchange(url: string): { req: IncomingMessage; res: ServerResponse } {
  const socket = { destroyed: false, remoteAddress: "127.0.0.1" };
  const req = Object.assign(new EventEmitter(), { url, method: "GET", destroyed: false, socket, headers: {} }) as unknown as IncomingMessage;
  const res = Object.assign(new EventEmitter(), { writableEnded: false, setHeader: () => undefined }) as unknown as ServerResponse;
  return { req, res };
}

/** One path of each class of work, none of which the front would take here (no front). */
const PATHS = ["/docs", "/mcp", "/login", "/oauth2/token", "/api/v1/agent/account"];

const nextIteration = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * server.ts's listener on the process's queue, with `next` recording what it is handed: one request of each class
 * goes in, and the answer says which were handed over within their request event and when all of them were.
 */
async function handOver() {
  const config = getConfig();
  const queue = turns();
  const admitting = new admission.Admission({
    bounds: admission.admissionBounds(config.admission.lanes, config.admission.queueWaitMs),
    heapShedShare: config.admission.heapShedShare,
    refuse: () => undefined,
    pacer: queue,
  });
  const handed: string[] = [];
  const listener = requestListener((req) => void handed.push(req.url ?? ""), { admission: admitting, turns: queue });
  for (const path of PATHS) {
    const { req, res } = exchange(path);
    listener(req, res);
  }
  const atOnce = [...handed].sort();
  while (handed.length < PATHS.length) await nextIteration();
  return { queue, atOnce, all: [...handed].sort() };
}

/** Whether a new /ask question's answer came after the event loop went round (a turn). */
async function askTakesATurn(): Promise<boolean> {
  let turned = false;
  setImmediate(() => (turned = true));
  const reply = await askReply({
    method: "GET",
    target: `/ask?query=${encodeURIComponent(`turns ${Date.now()}`)}`,
    headers: new Headers(),
    readBody: async () => ({ ok: true, value: "" }),
  });
  expect(reply.status).toBe(200);
  return turned;
}

describe("turns", () => {
  it("hands every request to Next on a later turn (the paced classes after admission's turn as well)", async () => {
    const { atOnce, all } = await handOver();
    expect(atOnce).toEqual([]);
    expect(all).toEqual([...PATHS].sort());
  });

  it("waits for a turn before searching a new /ask question", async () => {
    expect(await askTakesATurn()).toBe(true);
  });
});
