// TURNS (lib/config): the event-loop turns and the accept-aware pacer are one speed layer, and TURNS=off removes it
// so the bench can weigh it. Built as server.ts builds it (one queue from turns() for admission and the listener),
// the listener then hands a request to Next within the request event itself, whatever its class, and a new /ask
// question is searched at once; with TURNS on each waits for a turn. Each case is a restart (the configuration is
// read once per process).
import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it, vi } from "vitest";
import { useTestConfigAfterReset } from "../support/config";

/** A new process started with TURNS=value: the modules server.ts and /ask use. */
async function startWith(value: "on" | "off") {
  vi.resetModules();
  await useTestConfigAfterReset({ TURNS: value });
  return {
    config: (await import("@/lib/config")).getConfig(),
    turns: (await import("@/lib/server/turns")).turns,
    requestListener: (await import("@/lib/server/request-listener")).requestListener,
    admission: await import("@/lib/admission"),
    askReply: (await import("@/lib/docs/responses")).askReply,
  };
}

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
async function handOver(value: "on" | "off") {
  const m = await startWith(value);
  const queue = m.turns();
  const admission = new m.admission.Admission({
    bounds: m.admission.admissionBounds(m.config.admission.lanes, m.config.admission.queueWaitMs),
    heapShedShare: m.config.admission.heapShedShare,
    refuse: () => undefined,
    pacer: queue,
  });
  const handed: string[] = [];
  const listener = m.requestListener((req) => void handed.push(req.url ?? ""), { admission, turns: queue });
  for (const path of PATHS) {
    const { req, res } = exchange(path);
    listener(req, res);
  }
  const atOnce = [...handed].sort();
  while (handed.length < PATHS.length) await nextIteration();
  return { queue, atOnce, all: [...handed].sort() };
}

/** Whether a new /ask question's answer came after the event loop went round (a turn). */
async function askTakesATurn(setting: "on" | "off"): Promise<boolean> {
  const m = await startWith(setting);
  let turned = false;
  setImmediate(() => (turned = true));
  const reply = await m.askReply({
    method: "GET",
    target: `/ask?query=${encodeURIComponent(`turns ${setting} ${Date.now()}`)}`,
    headers: new Headers(),
    readBody: async () => ({ ok: true, value: "" }),
  });
  expect(reply.status).toBe(200);
  return turned;
}

describe("TURNS=off", () => {
  it("gives no queue: every request is handed to Next within its request event, paced classes too", async () => {
    const { queue, atOnce } = await handOver("off");
    expect(queue).toBeUndefined();
    expect(atOnce).toEqual([...PATHS].sort());
  });

  it("searches a new /ask question at once, before the event loop goes round", async () => {
    expect(await askTakesATurn("off")).toBe(false);
  });
});

describe("TURNS=on (the default)", () => {
  it("hands every request to Next on a later turn (the paced classes after admission's turn as well)", async () => {
    const { queue, atOnce, all } = await handOver("on");
    expect(queue).toBeDefined();
    expect(atOnce).toEqual([]);
    expect(all).toEqual([...PATHS].sort());
  });

  it("waits for a turn before searching a new /ask question", async () => {
    expect(await askTakesATurn("on")).toBe(true);
  });
});
