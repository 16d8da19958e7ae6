import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { NO_ADDRESS_KEY } from "@/lib/http/client-ip";
import { transaction } from "@/lib/db";
import { hitRateLimit, peekRateLimit, rateLimitHeaders, releaseRateLimit, reserveRateLimit, reserveRateLimitHits } from "@/lib/rate-limit";
import { sqlRunDuring } from "../../support/sql-trace";

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

  it("reserves many hits at once exactly as that many single reservations one after another would", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 90 }),
        async (limit, before, hits, later) => {
          run += 1;
          const clock = new ManualClock();
          const batchRule = { name: `many-${run}-${Math.random()}`, limit, windowSeconds: 60 };
          const singleRule = { ...batchRule, name: `${batchRule.name}-single` };
          // The same history on both keys, then `later` seconds on (within the window, or past its end).
          for (let i = 0; i < before; i++) {
            await reserveRateLimit(batchRule, "subject", clock);
            await reserveRateLimit(singleRule, "subject", clock);
          }
          clock.advance(later);
          const many = await transaction(() => reserveRateLimitHits(batchRule, "subject", hits, clock.now()));
          const singles = [];
          for (let i = 0; i < hits; i++) singles.push(await reserveRateLimit(singleRule, "subject", clock));
          const comparable = (results: Awaited<ReturnType<typeof reserveRateLimit>>[]) =>
            results.map(({ allowed, remaining, resetSeconds, limit: l }) => ({ allowed, remaining, resetSeconds, limit: l }));
          expect(comparable(many)).toEqual(comparable(singles));
          expect(await peekRateLimit(batchRule, "subject", clock)).toEqual(await peekRateLimit(singleRule, "subject", clock));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("counts hits that all fit in one statement; a window without room for all of them takes them one by one until full", async () => {
    const clock = new ManualClock();
    const manyRule = { name: `statements-${Math.random()}`, limit: 10, windowSeconds: 60 };
    const counting = (sql: string) => sql.includes(`INSERT INTO "RateLimitBucket"`);
    const fits = await sqlRunDuring(() => transaction(() => reserveRateLimitHits(manyRule, "subject", 6, clock.now())));
    expect(fits.filter(counting)).toHaveLength(1);
    // 4 left: one try for all 6, four single hits, one refused single hit, then one read for Retry-After.
    let results: Awaited<ReturnType<typeof reserveRateLimitHits>> = [];
    const overflow = await sqlRunDuring(async () => {
      results = await transaction(() => reserveRateLimitHits(manyRule, "subject", 6, clock.now()));
    });
    expect(overflow.filter(counting)).toHaveLength(6);
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, false, false]);
    expect(results.map((r) => r.remaining)).toEqual([3, 2, 1, 0, 0, 0]);
    // A full window: one hit is refused by one statement, and a read for Retry-After.
    const full = await sqlRunDuring(() => transaction(() => reserveRateLimitHits(manyRule, "subject", 1, clock.now())));
    expect(full.filter(counting)).toHaveLength(1);
    expect(full.filter((sql) => !/^(BEGIN|COMMIT)/.test(sql))).toHaveLength(2);
  });
});
