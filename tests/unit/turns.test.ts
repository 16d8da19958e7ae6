// lib/server/turns: heavy work runs a few jobs per event-loop iteration (one while iterations run long), in arrival order.
import { describe, expect, it } from "vitest";
import { TurnQueue } from "@/lib/server/turns";

/** A scheduler the test steps by hand: each tick() is one event-loop iteration's check phase. */
function manualScheduler() {
  const pending: (() => void)[] = [];
  return {
    schedule: (callback: () => void) => void pending.push(callback),
    get scheduled() {
      return pending.length;
    },
    tick(): void {
      const callbacks = pending.splice(0);
      for (const callback of callbacks) callback();
    },
  };
}

describe("TurnQueue", () => {
  it("runs nothing at once, then one job per iteration while iterations run long, in arrival order", () => {
    const clock = manualScheduler();
    let now = 0;
    // Every iteration takes 10 ms, longer than the pacer's target: one job each.
    const queue = new TurnQueue(clock.schedule, () => (now += 10));
    const ran: number[] = [];
    for (const n of [1, 2, 3]) queue.run(() => ran.push(n));
    expect(ran).toEqual([]);
    expect(queue.waiting).toBe(3);
    expect(clock.scheduled).toBe(1);
    clock.tick();
    expect(ran).toEqual([1]);
    clock.tick();
    expect(ran).toEqual([1, 2]);
    clock.tick();
    expect(ran).toEqual([1, 2, 3]);
    expect(queue.waiting).toBe(0);
    expect(clock.scheduled).toBe(0);
  });

  it("queues a job added during a turn behind the ones already waiting", () => {
    const clock = manualScheduler();
    const queue = new TurnQueue(clock.schedule);
    const ran: string[] = [];
    queue.run(() => {
      ran.push("a");
      queue.run(() => ran.push("c"));
    });
    queue.run(() => ran.push("b"));
    clock.tick();
    clock.tick();
    clock.tick();
    expect(ran).toEqual(["a", "b", "c"]);
  });

  it("keeps going after a job throws", () => {
    const clock = manualScheduler();
    const queue = new TurnQueue(clock.schedule);
    const ran: string[] = [];
    queue.run(() => {
      throw new Error("job failed");
    });
    queue.run(() => ran.push("next"));
    expect(() => clock.tick()).toThrow("job failed");
    clock.tick();
    expect(ran).toEqual(["next"]);
  });

  it("wait() resolves on the caller's turn, in order, never at once", async () => {
    const clock = manualScheduler();
    const queue = new TurnQueue(clock.schedule);
    const order: number[] = [];
    const waits = [1, 2].map((n) => queue.wait().then(() => order.push(n)));
    await Promise.resolve();
    expect(order).toEqual([]);
    clock.tick();
    await Promise.resolve();
    expect(order).toEqual([1]);
    clock.tick();
    await Promise.all(waits);
    expect(order).toEqual([1, 2]);
  });

  it("lets the event loop go round between two jobs (real setImmediate)", async () => {
    const queue = new TurnQueue();
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      queue.run(() => {
        seen.push("job 1");
        setTimeout(() => seen.push("timer"), 0);
        // The timer is due once this job ends: it fires in the timers phase before the next turn.
        const until = Date.now() + 3;
        while (Date.now() < until);
      });
      queue.run(() => seen.push("job 2"));
      queue.run(() => {
        seen.push("job 3");
        resolve();
      });
    });
    expect(seen).toEqual(["job 1", "timer", "job 2", "job 3"]);
  });
});
