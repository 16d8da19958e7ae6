// The janitor's pacing (issue #17 item 4): after each full batch the pass pauses in proportion to the batch's
// time, so deleting a large backlog takes at most the duty cycle's share of the event loop; the pass stops
// starting batches at its budget (the cron route's time limit). A fake clock and sleep: nothing waits.
import { describe, expect, it } from "vitest";
import { deleteInBatches, type BatchDelete } from "@/lib/operator/janitor";
import { BackgroundPacer } from "@/lib/background/pacing";
import { fakeTime } from "../../support/pacing";

/** Deletes `rows` in batches, each taking `msPerBatch` on the fake clock. */
function table(rows: number, msPerBatch: number, time: ReturnType<typeof fakeTime>): BatchDelete & { calls: number } {
  let left = rows;
  const remove = Object.assign(
    async (limit: number) => {
      remove.calls++;
      time.advance(msPerBatch);
      const removed = Math.min(limit, left);
      left -= removed;
      return removed;
    },
    { calls: 0 },
  );
  return remove;
}

describe("janitor pacing", () => {
  it("pauses after each full batch four times its duration (20 % duty cycle), never after the last, short one", async () => {
    const time = fakeTime();
    const pacer = new BackgroundPacer({ dutyCycle: 0.2, now: time.now, sleep: time.sleep });
    const remove = table(330, 50, time);
    const removed = await deleteInBatches(remove, { batchSize: 100, maxBatches: Infinity, pacer, stopAt: Infinity });
    expect(removed).toBe(330);
    expect(remove.calls).toBe(4);
    expect(time.pauses).toEqual([200, 200, 200]);
    // The full batches took 3 × 50 ms of 3 × (50 + 200) ms: the duty cycle.
    expect((3 * 50) / (time.now() - 50)).toBeLessThanOrEqual(0.2 + 1e-9);
  });

  it("stops starting batches at the budget; the next pass goes on", async () => {
    const time = fakeTime();
    const pacer = new BackgroundPacer({ dutyCycle: 0.2, now: time.now, sleep: time.sleep });
    const remove = table(10_000, 50, time);
    // Batches start at 0, 250, 500 ms; at 750 ms the 600 ms budget is spent.
    expect(await deleteInBatches(remove, { batchSize: 100, maxBatches: Infinity, pacer, stopAt: 600 })).toBe(300);
    expect(remove.calls).toBe(3);
  });

  it("a slow batch (a GC pause) never stalls the pass longer than the cap; a day's normal volume is two short batches", async () => {
    const pacer = new BackgroundPacer({ dutyCycle: 0.2, maxPauseMs: 2000 });
    expect(pacer.pauseFor(5_000)).toBe(2000);
    expect(pacer.pauseFor(10)).toBe(40);
    expect(new BackgroundPacer({ dutyCycle: 1 }).pauseFor(10)).toBe(0);
    const time = fakeTime();
    const remove = table(170, 2, time);
    await deleteInBatches(remove, { batchSize: 100, maxBatches: Infinity, pacer: new BackgroundPacer({ now: time.now, sleep: time.sleep }), stopAt: Infinity });
    expect(time.pauses).toEqual([8]);
    expect(time.now()).toBe(12);
  });
});
