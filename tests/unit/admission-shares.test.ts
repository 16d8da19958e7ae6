// Issue 41 item 2: within a class of work one caller key holds at most its share of the running requests and of the
// queue; one more is refused at once ("over_share", before it takes anything shared), and the queue then holds
// other callers' work, served caller by caller. Injected clock; no timers. Each case fails on a lane without shares.
import { describe, expect, it } from "vitest";
import { callerShare } from "@/lib/admission";
import { AdmissionLane, type Entry } from "@/lib/admission/lane";

function sharedLane(inFlight: number, queue: number, share: { inFlight: number; queue: number }, maxWaitMs = 1000) {
  let now = 0;
  const lane = new AdmissionLane({ inFlight, queue, maxWaitMs, share }, () => now);
  const started: string[] = [];
  const refused: string[] = [];
  const enter = (caller: string, name: string, gone: () => boolean = () => false): Entry =>
    lane.enter(
      () => started.push(name),
      () => refused.push(name),
      gone,
      caller,
    );
  return { lane, started, refused, enter, advance: (ms: number) => (now += ms) };
}

describe("a caller's share of a lane", () => {
  it("is a quarter of each bound by default, at least one running request", () => {
    expect(callerShare({ inFlight: 16, queue: 128 }, 0.25)).toEqual({ inFlight: 4, queue: 32 });
    expect(callerShare({ inFlight: 2, queue: 0 }, 0.25)).toEqual({ inFlight: 1, queue: 0 });
    expect(callerShare({ inFlight: 8, queue: 64 }, 1)).toEqual({ inFlight: 8, queue: 64 });
  });

  it("refuses a caller past its share at once while the lane still has room, and serves another caller", () => {
    const { lane, started, enter } = sharedLane(8, 16, { inFlight: 2, queue: 2 });
    const flood = Array.from({ length: 10 }, (_, i) => enter("10.0.0.1", `flood${i}`));
    expect(flood).toEqual(["started", "started", "queued", "queued", "over_share", "over_share", "over_share", "over_share", "over_share", "over_share"]);
    // Slots are free, yet the flooder's queued requests wait for its own running ones.
    expect(lane.inFlight).toBe(2);
    expect(enter("10.0.0.2", "polite")).toBe("started");
    expect(started).toEqual(["flood0", "flood1", "polite"]);
    // The flooder's next request starts when one of its own ends.
    lane.leave("10.0.0.1");
    expect(started.at(-1)).toBe("flood2");
    expect(lane.holding("10.0.0.1")).toEqual({ running: 2, waiting: 1 });
  });

  it("gives a freed slot to the callers in turn, so a newcomer waits behind one request per caller, not a whole queue", () => {
    const { lane, started, enter } = sharedLane(2, 64, { inFlight: 2, queue: 16 });
    for (let i = 0; i < 12; i++) enter("flooder", `f${i}`);
    expect(enter("newcomer", "n0")).toBe("queued");
    expect(enter("third", "t0")).toBe("queued");
    lane.leave("flooder");
    lane.leave("flooder");
    // The newcomer and the third caller go before the flooder's ten waiting requests.
    expect(started).toEqual(["f0", "f1", "n0", "t0"]);
    lane.leave("newcomer");
    lane.leave("third");
    expect(started.slice(4)).toEqual(["f2", "f3"]);
  });

  it("counts 'refused' (the lane's queue is full) apart from 'over_share'", () => {
    const { enter } = sharedLane(1, 2, { inFlight: 1, queue: 2 });
    expect(enter("a", "a0")).toBe("started");
    expect(enter("b", "b0")).toBe("queued");
    expect(enter("c", "c0")).toBe("queued");
    expect(enter("d", "d0")).toBe("refused");
  });

  it("refuses a caller's waiters that waited too long and drops the gone ones, then starts the rest in turn", () => {
    const { lane, started, refused, enter, advance } = sharedLane(1, 8, { inFlight: 1, queue: 4 }, 1000);
    enter("a", "a0");
    let b0Gone = false;
    enter("b", "b0", () => b0Gone);
    advance(600);
    enter("c", "c0");
    b0Gone = true;
    advance(500);
    expect(lane.expire()).toBe(0);
    expect(lane.queued).toBe(1);
    advance(600);
    expect(lane.expire()).toBe(1);
    expect(refused).toEqual(["c0"]);
    lane.leave("a");
    expect(started).toEqual(["a0"]);
    expect(lane.inFlight).toBe(0);
  });

  it("forgets a caller once it holds nothing, so a scan of many addresses leaves no memory behind", () => {
    const { lane, enter } = sharedLane(4, 4, { inFlight: 1, queue: 1 });
    for (let i = 0; i < 1000; i++) {
      enter(`10.0.${i >> 8}.${i & 255}`, `r${i}`);
      lane.leave(`10.0.${i >> 8}.${i & 255}`);
    }
    expect(lane.inFlight).toBe(0);
    expect((lane as unknown as { callers: Map<string, unknown> }).callers.size).toBe(0);
  });

  it("without a share, callers are not told apart and arrival order holds", () => {
    let now = 0;
    const lane = new AdmissionLane({ inFlight: 1, queue: 10, maxWaitMs: 1000 }, () => now);
    const started: string[] = [];
    for (const [caller, name] of [
      ["a", "a0"],
      ["a", "a1"],
      ["b", "b0"],
      ["a", "a2"],
    ] as const)
      lane.enter(
        () => started.push(name),
        () => undefined,
        () => false,
        caller,
      );
    now += 1;
    for (let i = 0; i < 3; i++) lane.leave("a");
    expect(started).toEqual(["a0", "a1", "b0", "a2"]);
  });
});
