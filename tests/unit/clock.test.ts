// lib/clock: the system clock reads the runtime's Date as the module found it. Next replaces the global Date with
// a wrapper that asks, on every construction, whether a prerender reads the clock; the production server loads
// this module before Next, so its clock does without that (bench/README.md, ninth pass).
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock, runtimeDate, systemClock } from "@/lib/clock";
import { readDate } from "@/lib/db/sql";
import { requestLine } from "@/lib/operations/log";

const RuntimeDate = Date;

/** Replaces the global Date with a wrapper, as Next does, that counts what it constructs and its now() calls. */
function wrapGlobalDate(): { constructions: number; nowCalls: number } {
  const counter = { constructions: 0, nowCalls: 0 };
  globalThis.Date = new Proxy(RuntimeDate, {
    construct(target, args: unknown[], newTarget: typeof RuntimeDate) {
      counter.constructions++;
      return Reflect.construct(target, args, newTarget) as object;
    },
    get(target, property, receiver: unknown) {
      if (property !== "now") return Reflect.get(target, property, receiver) as unknown;
      return () => {
        counter.nowCalls++;
        return target.now();
      };
    },
  });
  return counter;
}

describe("systemClock", () => {
  afterEach(() => {
    globalThis.Date = RuntimeDate;
  });

  it("keeps the Date it was loaded with when the global one is replaced later (as Next does)", () => {
    const wrapper = wrapGlobalDate();
    const before = RuntimeDate.now();
    const now = systemClock.now();
    expect(wrapper.constructions).toBe(0);
    expect(now).toBeInstanceOf(RuntimeDate);
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    expect(now.getTime()).toBeLessThanOrEqual(RuntimeDate.now());
  });

  it("dates read from the database and computed on request paths use that Date too", () => {
    const wrapper = wrapGlobalDate();
    const at = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(runtimeDate(at).getTime()).toBe(at);
    expect(runtimeDate("2026-01-01T12:00:00.000Z").getTime()).toBe(at);
    // SQLite's forms: ISO text, CURRENT_TIMESTAMP's zoneless UTC text, epoch milliseconds.
    for (const stored of ["2026-01-01T12:00:00.000Z", "2026-01-01 12:00:00", at, BigInt(at)]) {
      const date = readDate(stored);
      expect(date).toBeInstanceOf(RuntimeDate);
      expect(date.getTime()).toBe(at);
    }
    expect(wrapper.constructions).toBe(0);
  });

  it("the request log line takes its time from that Date (a line per request)", () => {
    const wrapper = wrapGlobalDate();
    const before = RuntimeDate.now();
    const line = JSON.parse(requestLine("info", { method: "GET", route: "/ask", status: 200, durationMs: 1.5, requestId: "r1", clientIp: "192.0.2.1" })) as { time: string };
    expect(wrapper).toEqual({ constructions: 0, nowCalls: 0 });
    expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const at = new RuntimeDate(line.time).getTime();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(RuntimeDate.now());
  });

  it("ManualClock moves only when told", () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    expect(clock.now().toISOString()).toBe("2026-01-01T00:00:00.000Z");
    clock.advance(600);
    expect(clock.now().toISOString()).toBe("2026-01-01T00:10:00.000Z");
  });
});
