// Background work yields to requests (issues #16 item 7, #17 item 4): while requests are being served the
// BackgroundPacer drops to its floor (3 % of wall time) and the janitor and webhook delivery shrink their units; on an
// idle server they run at their own duty cycle. The floor guarantees progress under a sustained load. A fake
// clock, sleep and load signal: nothing waits.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deleteInBatches, type BatchDelete } from "@/lib/operator/janitor";
import { BUSY_WINDOW_MS, noteRequestActivity, requestsActive } from "@/lib/background/load";
import { observeRequest } from "@/lib/server/observe";
import { BackgroundPacer, DEFAULT_BUSY_DUTY_CYCLE } from "@/lib/background/pacing";
import { removeEndpoint, runDeliveryPass } from "@/lib/webhooks";
import type { sendWebhook } from "@/lib/webhooks/send";
import { endpointWithBacklog, fakeTime } from "../../support/pacing";
import { configureFile, useTestConfigAfterReset } from "../../support/config";

/** A table of `rows` whose deletes take `msPerBatch` on the fake clock; records each batch's limit. */
function table(rows: number, msPerBatch: number, time: ReturnType<typeof fakeTime>) {
  let left = rows;
  const limits: number[] = [];
  const remove: BatchDelete = async (limit) => {
    limits.push(limit);
    time.advance(msPerBatch);
    const removed = Math.min(limit, left);
    left -= removed;
    return removed;
  };
  return { remove, limits, left: () => left };
}

describe("the load signal", () => {
  it("is on for BUSY_WINDOW_MS after a request's start or end, then off", () => {
    const at = performance.now() - 1000;
    noteRequestActivity(at);
    expect(requestsActive(at)).toBe(true);
    expect(requestsActive(at + BUSY_WINDOW_MS - 1)).toBe(true);
    expect(requestsActive(at + BUSY_WINDOW_MS)).toBe(false);
    expect(requestsActive()).toBe(false);
  });

  it("is one signal per process: a second copy of the module (Next bundles routes apart from the server entry) reads the same stamp", async () => {
    vi.resetModules();
    await useTestConfigAfterReset();
    const otherCopy = await import("@/lib/background/load");
    noteRequestActivity(performance.now() - 1000);
    expect(otherCopy.requestsActive()).toBe(false);
    noteRequestActivity(performance.now());
    expect(otherCopy.requestsActive()).toBe(true);
  });

  it("observeRequest stamps it: a request being served, and one just answered, make the server busy", async () => {
    const seen: { atStart?: boolean; afterEnd?: boolean } = {};
    const server = http.createServer((req, res) => {
      observeRequest(req, res, "/probe");
      seen.atStart = requestsActive();
      // The observation's own "close" listener runs first (registered first): its end stamp is there.
      res.on("close", () => (seen.afterEnd = requestsActive()));
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      await new Promise((r) => setTimeout(r, BUSY_WINDOW_MS + 20));
      expect(requestsActive()).toBe(false);
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/probe`);
      expect(await response.text()).toBe("ok");
      expect(seen).toEqual({ atStart: true, afterEnd: true });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("load-aware pacing", () => {
  it("pauses 32× a unit while busy (3 % floor), 4× while idle (20 %); at most 500 ms while busy, 2 s while idle", () => {
    let busy = false;
    const pacer = new BackgroundPacer({ dutyCycle: 0.2, busy: () => busy });
    expect(pacer.pauseFor(10)).toBe(40);
    busy = true;
    expect(pacer.pauseFor(10)).toBe(Math.round((10 * (1 - DEFAULT_BUSY_DUTY_CYCLE)) / DEFAULT_BUSY_DUTY_CYCLE));
    expect(pacer.pauseFor(10)).toBe(323);
    // A unit slowed by the load's own wait for the loop: the work still goes on at least twice a second.
    expect(pacer.pauseFor(1000)).toBe(500);
    busy = false;
    expect(pacer.pauseFor(1000)).toBe(2000);
    // The floor never exceeds the idle duty cycle.
    expect(new BackgroundPacer({ dutyCycle: 0.01, busy: () => true }).pauseFor(4)).toBe(396);
  });

  it("janitor: under a sustained load the batches shrink and the work keeps the floor; it still removes every row", async () => {
    const time = fakeTime();
    const pacer = new BackgroundPacer({ dutyCycle: 1, now: time.now, sleep: time.sleep, busy: () => true });
    const rows = table(1000, 2, time);
    const removed = await deleteInBatches(rows.remove, { batchSize: 100, busyBatchSize: 25, maxBatches: Infinity, pacer, stopAt: Infinity });
    expect(removed).toBe(1000);
    expect(rows.left()).toBe(0);
    expect(new Set(rows.limits)).toEqual(new Set([25]));
    // 40 full batches and a last empty one: 41 × 2 ms of work, a pause of 65 ms after each full batch.
    expect(time.pauses).toEqual(Array(40).fill(65));
    const share = (41 * 2) / time.now();
    expect(share).toBeGreaterThanOrEqual(0.029);
    expect(share).toBeLessThanOrEqual(0.031);
  });

  it("janitor: full batches and only a loop turn between them once the load stops", async () => {
    const time = fakeTime();
    let batches = 0;
    const rows = table(1000, 2, time);
    const counting: BatchDelete = (limit) => {
      batches++;
      return rows.remove(limit);
    };
    // Busy for the first three batches, then idle.
    const pacer = new BackgroundPacer({ dutyCycle: 1, now: time.now, sleep: time.sleep, busy: () => batches < 3 });
    await deleteInBatches(counting, { batchSize: 100, busyBatchSize: 25, maxBatches: Infinity, pacer, stopAt: Infinity });
    expect(rows.limits.slice(0, 4)).toEqual([25, 25, 25, 100]);
    expect(rows.left()).toBe(0);
    expect(time.pauses.slice(0, 2)).toEqual([65, 65]);
    expect(time.pauses.slice(3).every((pause) => pause === 0)).toBe(true);
  });

  it("starvation-free: whatever the load does, a pass removes every row and each unit gets at least the floor's share", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 3000 }),
        async (loadPattern, msPerBatch, rowCount) => {
          const time = fakeTime();
          let reading = 0;
          const pacer = new BackgroundPacer({ dutyCycle: 0.2, now: time.now, sleep: time.sleep, busy: () => loadPattern[reading++ % loadPattern.length] });
          const rows = table(rowCount, msPerBatch, time);
          const removed = await deleteInBatches(rows.remove, { batchSize: 100, busyBatchSize: 25, maxBatches: Infinity, pacer, stopAt: Infinity });
          expect(removed).toBe(rowCount);
          // Every pause is at most the floor's: work / (work + pause) ≥ 3 % (rounding aside).
          for (const pause of time.pauses) expect(msPerBatch / (msPerBatch + pause)).toBeGreaterThanOrEqual(DEFAULT_BUSY_DUTY_CYCLE - 0.001);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("webhook delivery under load", () => {
  let endpointId = "";
  beforeAll(() => {
    configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });
  });
  afterAll(async () => {
    if (endpointId) await removeEndpoint(endpointId);
  });

  it("45 events while busy: fan-out in fives and sends in fours at the floor, and every one is still delivered", async () => {
    const backlog = await endpointWithBacklog(45);
    const clock = backlog.clock;
    endpointId = backlog.endpointId;
    let time = 0;
    const pauses: number[] = [];
    // Every reading moves this clock by 5 ms: each unit of work measures 5 ms.
    const now = () => (time += 5);
    const sleep = async (ms: number) => void pauses.push(ms);
    const batchSizes: number[] = [];
    let inBatch = 0;
    const send: typeof sendWebhook = async () => {
      inBatch++;
      await Promise.resolve();
      if (inBatch > 0) batchSizes.push(inBatch);
      inBatch = 0;
      return { status: 204, ok: true, excerpt: "" };
    };
    const summary = await runDeliveryPass({ clock, send, pacing: { now, sleep, busy: () => true } });
    expect(summary).toMatchObject({ fannedOut: 45, delivered: 45 });
    expect(Math.max(...batchSizes)).toBeLessThanOrEqual(4);
    // 9 full fan-out transactions of 5 and 11 full send batches of 4 (45 = 11 × 4 + 1): each followed by the floor's pause.
    expect(pauses.length).toBe(9 + 11);
    expect(new Set(pauses)).toEqual(new Set([162]));
  });
});
