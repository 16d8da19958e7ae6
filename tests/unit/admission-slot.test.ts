// A request waiting on the fleet's shared store gives its admission slot back meanwhile (lib/admission/slot.ts,
// lib/admission/lane.ts suspend/resume): the slot runs the next waiter, the request takes a slot again before any
// waiter when its store answers, and the lane's bounds (and each caller's share) hold whatever the waits. Without
// it a lane whose slots all wait on Redis runs nothing (issue 50 item 8). Admission with it: tests/unit/admission.test.ts.
import { describe, expect, it } from "vitest";
import { AdmissionLane } from "@/lib/admission/lane";
import { offSlot, runHoldingSlot, Slot } from "@/lib/admission/slot";

function laneOf(inFlight: number, queue: number, share?: { inFlight: number; queue: number }): AdmissionLane {
  return new AdmissionLane({ inFlight, queue, maxWaitMs: 1000, ...(share ? { share } : {}) }, () => 0);
}

/** A request that enters `lane` as `caller` and records its name when it starts. */
function enter(lane: AdmissionLane, started: string[], name: string, caller = "c") {
  return lane.enter(
    () => started.push(name),
    () => started.push(`${name} refused`),
    () => false,
    caller,
  );
}

/** A promise and the function that settles it. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("a lane's suspended requests", () => {
  it("give their slot to the next waiter, and take the next free one before any waiter when their store answers", () => {
    const lane = laneOf(1, 4);
    const started: string[] = [];
    enter(lane, started, "a");
    enter(lane, started, "b");
    enter(lane, started, "c");
    expect(started).toEqual(["a"]);
    // a waits on the store: b runs in its slot.
    expect(lane.suspend("c")).toBe(true);
    expect(started).toEqual(["a", "b"]);
    expect({ inFlight: lane.inFlight, queued: lane.queued, suspended: lane.suspended }).toEqual({ inFlight: 1, queued: 1, suspended: 1 });
    // The store answers a: it waits for a slot, ahead of c, which arrived before it was resumed.
    lane.resume(
      "c",
      () => started.push("a again"),
      () => false,
    );
    expect(started).toEqual(["a", "b"]);
    lane.leave("c");
    expect(started).toEqual(["a", "b", "a again"]);
    lane.leave("c");
    expect(started).toEqual(["a", "b", "a again", "c"]);
    lane.leave("c");
    expect({ inFlight: lane.inFlight, queued: lane.queued, suspended: lane.suspended }).toEqual({ inFlight: 0, queued: 0, suspended: 0 });
  });

  it("resume at once while a slot is free", () => {
    const lane = laneOf(2, 2);
    const started: string[] = [];
    enter(lane, started, "a");
    expect(lane.suspend("c")).toBe(true);
    expect(lane.inFlight).toBe(0);
    lane.resume(
      "c",
      () => started.push("a again"),
      () => false,
    );
    expect(started).toEqual(["a", "a again"]);
    expect(lane.inFlight).toBe(1);
  });

  it("count against the queue's bound: the lane never holds more than inFlight + queue requests", () => {
    const lane = laneOf(1, 2);
    const started: string[] = [];
    expect(enter(lane, started, "a")).toBe("started");
    expect(lane.suspend("c")).toBe(true);
    expect(enter(lane, started, "b")).toBe("started");
    expect(lane.suspend("c")).toBe(true);
    // Two wait on the store, the queue's bound is 2: the next is refused, and the running one cannot suspend.
    expect(enter(lane, started, "c")).toBe("started");
    expect(enter(lane, started, "d")).toBe("refused");
    expect(lane.suspend("c")).toBe(false);
    expect(lane.inFlight + lane.queued + lane.suspended).toBe(3);
  });

  it("still count as running for their caller's share: the slot one frees goes to other callers, never to more of its own", () => {
    const lane = laneOf(4, 8, { inFlight: 1, queue: 2 });
    const started: string[] = [];
    expect(enter(lane, started, "x1", "x")).toBe("started");
    expect(enter(lane, started, "x2", "x")).toBe("queued");
    expect(lane.suspend("x")).toBe(true);
    // x1 waits on the store: x2 stays queued (x holds its one share), y starts in the free slot.
    expect(started).toEqual(["x1"]);
    expect(enter(lane, started, "y1", "y")).toBe("started");
    expect(lane.holding("x")).toEqual({ running: 1, waiting: 1 });
    // x1 resumes and ends: then x2 runs.
    lane.resume(
      "x",
      () => started.push("x1 again"),
      () => false,
    );
    expect(started).toEqual(["x1", "y1", "x1 again"]);
    lane.leave("x");
    expect(started).toEqual(["x1", "y1", "x1 again", "x2"]);
  });

  it("whose client left hold nothing: dropped while waiting, skipped when their turn comes", () => {
    const lane = laneOf(1, 4);
    const started: string[] = [];
    enter(lane, started, "a");
    lane.suspend("c");
    enter(lane, started, "b");
    lane.suspend("c");
    expect(lane.suspended).toBe(2);
    // a's client left while its store was answering: nothing is taken or given back but its place in the bound.
    lane.drop("c");
    expect(lane.suspended).toBe(1);
    // b's store answered while no slot was free... and its client left before its turn: skipped.
    enter(lane, started, "c");
    let bGone = false;
    lane.resume(
      "c",
      () => started.push("b again"),
      () => bGone,
    );
    bGone = true;
    enter(lane, started, "d");
    lane.leave("c");
    expect(started).toEqual(["a", "b", "c", "d"]);
    expect({ inFlight: lane.inFlight, queued: lane.queued, suspended: lane.suspended }).toEqual({ inFlight: 1, queued: 0, suspended: 0 });
  });
});

describe("a slot, through offSlot", () => {
  it("is the wait itself outside admission (Vercel, next start)", async () => {
    await expect(offSlot(Promise.resolve(7))).resolves.toBe(7);
    await expect(offSlot(Promise.reject(new Error("down")))).rejects.toThrow("down");
  });

  it("gives the slot back for the wait and holds it again before the result is returned, rejections too", async () => {
    const lane = laneOf(1, 4);
    const started: string[] = [];
    expect(enter(lane, started, "a")).toBe("started");
    const slot = new Slot(lane, "c");
    const store = deferred<number>();
    const answer = runHoldingSlot(slot, () => offSlot(store.promise));
    expect(lane.inFlight).toBe(0);
    enter(lane, started, "b");
    expect(lane.inFlight).toBe(1);
    store.resolve(3);
    await flush();
    // b holds the only slot: a's result waits for it.
    let value: number | undefined;
    void answer.then((v) => (value = v));
    await flush();
    expect(value).toBeUndefined();
    lane.leave("c");
    await flush();
    expect(value).toBe(3);
    expect(lane.inFlight).toBe(1);
    // A failed wait gives its error back the same way, with the slot held again.
    const failing = deferred<number>();
    const failed = runHoldingSlot(slot, () => offSlot(failing.promise));
    expect(lane.inFlight).toBe(0);
    failing.reject(new Error("redis down"));
    await expect(failed).rejects.toThrow("redis down");
    expect(lane.inFlight).toBe(1);
    slot.release();
    expect({ inFlight: lane.inFlight, queued: lane.queued, suspended: lane.suspended }).toEqual({ inFlight: 0, queued: 0, suspended: 0 });
  });

  it("is released once whatever its state when the connection closes", async () => {
    const lane = laneOf(1, 4);
    const started: string[] = [];
    enter(lane, started, "a");
    const slot = new Slot(lane, "c");
    const store = deferred<string>();
    const answer = runHoldingSlot(slot, () => offSlot(store.promise));
    enter(lane, started, "b");
    // Suspended, and its client leaves: its place is given back, the running b keeps its slot.
    slot.release();
    slot.release();
    expect({ inFlight: lane.inFlight, suspended: lane.suspended }).toEqual({ inFlight: 1, suspended: 0 });
    // The store answers later: the request's code goes on without taking a slot.
    store.resolve("late");
    await expect(answer).resolves.toBe("late");
    expect(lane.inFlight).toBe(1);
  });
});
