// lib/clock: the system clock is the real time; ManualClock moves only when a test moves it. Dates read back from
// the database come in each provider's forms.
import { describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "@/lib/clock";
import { readDate } from "@/lib/db/sql";

describe("clocks", () => {
  it("systemClock reads the current time", () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeInstanceOf(Date);
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    expect(now.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("ManualClock moves only when told", () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    expect(clock.now().toISOString()).toBe("2026-01-01T00:00:00.000Z");
    clock.advance(600);
    expect(clock.now().toISOString()).toBe("2026-01-01T00:10:00.000Z");
    clock.set(new Date(Date.UTC(2026, 5, 1)));
    expect(clock.now().toISOString()).toBe("2026-06-01T00:00:00.000Z");
  });
});

describe("readDate", () => {
  it("reads SQLite's forms: ISO text, CURRENT_TIMESTAMP's zoneless UTC text, epoch milliseconds", () => {
    const at = Date.UTC(2026, 0, 1, 12, 0, 0);
    for (const stored of ["2026-01-01T12:00:00.000Z", "2026-01-01 12:00:00", at, BigInt(at)]) expect(readDate(stored).getTime()).toBe(at);
    expect(() => readDate("not a date")).toThrow(TypeError);
  });
});
