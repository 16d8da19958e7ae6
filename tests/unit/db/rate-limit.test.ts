import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { NO_ADDRESS_KEY } from "@/lib/http/client-ip";
import { hitRateLimit, peekRateLimit, rateLimitHeaders, releaseRateLimit, reserveRateLimit } from "@/lib/rate-limit";

const rule = { name: "test-rule", limit: 3, windowSeconds: 60 };

describe("database-kept rate limits", () => {
  it("allows up to the limit per window, then refuses until the window resets", async () => {
    const clock = new ManualClock();
    const subject = `ip-${Math.random()}`;
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await hitRateLimit(rule, subject, clock));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3]!.resetSeconds).toBe(60);
    clock.advance(30);
    expect((await hitRateLimit(rule, subject, clock)).resetSeconds).toBe(30);
    clock.advance(30);
    const fresh = await hitRateLimit(rule, subject, clock);
    expect(fresh).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it("keeps subjects and rules apart", async () => {
    const clock = new ManualClock();
    for (let i = 0; i < 3; i++) await hitRateLimit(rule, "subject-a", clock);
    expect((await hitRateLimit(rule, "subject-b", clock)).allowed).toBe(true);
    expect((await hitRateLimit({ ...rule, name: "other" }, "subject-a", clock)).allowed).toBe(true);
  });

  it("counts every one of many concurrent hits (no lost updates)", async () => {
    const clock = new ManualClock();
    const subject = `burst-${Math.random()}`;
    const results = await Promise.all(Array.from({ length: 12 }, () => hitRateLimit({ ...rule, limit: 5 }, subject, clock)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it("peeks without counting", async () => {
    const clock = new ManualClock();
    const subject = `peek-${Math.random()}`;
    expect((await peekRateLimit(rule, subject, clock)).allowed).toBe(true);
    for (let i = 0; i < 3; i++) await hitRateLimit(rule, subject, clock);
    expect((await peekRateLimit(rule, subject, clock)).allowed).toBe(false);
    expect((await peekRateLimit(rule, subject, clock)).remaining).toBe(0);
  });

  it("renders RateLimit headers", () => {
    expect(rateLimitHeaders({ allowed: true, limit: 10, remaining: 7, resetSeconds: 42 })).toEqual({
      "RateLimit-Limit": "10",
      "RateLimit-Remaining": "7",
      "RateLimit-Reset": "42",
    });
  });

  it("never lets more than the limit through a window, under any parallelism, and restarts an expired window once", async () => {
    const clock = new ManualClock();
    const subject = `race-${Math.random()}`;
    const first = await Promise.all(Array.from({ length: 60 }, () => reserveRateLimit({ ...rule, limit: 7 }, subject, clock)));
    expect(first.filter((r) => r.allowed)).toHaveLength(7);
    expect((await peekRateLimit({ ...rule, limit: 7 }, subject, clock)).remaining).toBe(0);
    clock.advance(60);
    const second = await Promise.all(Array.from({ length: 60 }, () => reserveRateLimit({ ...rule, limit: 7 }, subject, clock)));
    expect(second.filter((r) => r.allowed)).toHaveLength(7);
  });

  it("gives a reservation back within its window only, never below zero", async () => {
    const clock = new ManualClock();
    const subject = `release-${Math.random()}`;
    const reservations = [];
    for (let i = 0; i < 3; i++) reservations.push(await reserveRateLimit(rule, subject, clock));
    expect((await reserveRateLimit(rule, subject, clock)).allowed).toBe(false);
    await releaseRateLimit(rule, subject, reservations[0]!);
    expect((await reserveRateLimit(rule, subject, clock)).allowed).toBe(true);
    // A reservation of an earlier window gives nothing back in the next one.
    clock.advance(60);
    const fresh = await reserveRateLimit(rule, subject, clock);
    await releaseRateLimit(rule, subject, reservations[1]!);
    expect((await peekRateLimit(rule, subject, clock)).remaining).toBe(2);
    await releaseRateLimit(rule, subject, fresh);
    await releaseRateLimit(rule, subject, fresh);
    expect((await peekRateLimit(rule, subject, clock)).remaining).toBe(3);
  });

  it("keeps the no-address bucket strict: a tenth of the limit", async () => {
    const clock = new ManualClock();
    const strict = { name: `strict-${Math.random()}`, limit: 20, windowSeconds: 60 };
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await hitRateLimit(strict, NO_ADDRESS_KEY, clock)).allowed);
    expect(results).toEqual([true, true, false]);
  });
});
