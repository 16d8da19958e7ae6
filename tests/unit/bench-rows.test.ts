// bench/rows.ts: a scenario's row from its runs (bench/run.ts --rounds alternates a scenario with its bare baseline).
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../bench/load.mjs";
import { rowOf, type Round } from "../../bench/rows";

function round(requestsPerSecond: number, p50: number, p99: number, extra: Partial<Round> & { errors?: number; sheds?: number; samples?: string[] } = {}): Round {
  const result: LoadResult = {
    requests: requestsPerSecond * 10,
    warmupRequests: requestsPerSecond * 2,
    requestsPerSecond,
    p50,
    p99,
    errors: extra.errors ?? 0,
    sheds: extra.sheds ?? 0,
    errorSamples: extra.samples ?? [],
  };
  return { result, peakRss: extra.peakRss ?? 100, cpuMs: extra.cpuMs ?? requestsPerSecond * 12, load: extra.load ?? "1.0", ...(extra.notes ? { notes: extra.notes } : {}) };
}

describe("a bench row from its runs", () => {
  it("one run gives its own figures", () => {
    const row = rowOf("A2A SendMessage (1.0)", [round(1500, 30, 80, { cpuMs: 9000, peakRss: 190 })]);
    expect(row).toMatchObject({ name: "A2A SendMessage (1.0)", ratio: null, peakRss: 190, load: "1.0" });
    expect(row.result).toEqual({ requests: 15_000, warmupRequests: 3000, requestsPerSecond: 1500, p50: 30, p99: 80, errors: 0, sheds: 0, errorSamples: [] });
    expect(row.cpuMsPerRequest).toBeCloseTo(9000 / 18_000);
    expect(row.notes).toBeUndefined();
  });

  it("several runs: mean requests/s, CPU over all requests, the median run's percentiles, the highest RSS, every error and shed", () => {
    const rounds = [
      round(1000, 40, 120, { cpuMs: 12_000, peakRss: 150, errors: 1, samples: ["500 a", "500 b", "500 c"] }),
      round(2000, 20, 60, { cpuMs: 12_000, peakRss: 210, load: "2.0", errors: 2, samples: ["500 d", "500 e", "500 f"] }),
      round(1500, 30, 90, { cpuMs: 12_000, peakRss: 180, load: "1.5", notes: ["drained"], sheds: 4 }),
    ];
    const row = rowOf("MCP tools/call (2026-07-28)", rounds);
    expect(row.result.requestsPerSecond).toBe(1500);
    expect(row.result.requests).toBe(45_000);
    expect(row.result.warmupRequests).toBe(9000);
    expect(row.result.p50).toBe(30);
    expect(row.result.p99).toBe(90);
    expect(row.result.errors).toBe(3);
    expect(row.result.sheds).toBe(4);
    expect(row.result.errorSamples).toEqual(["500 a", "500 b", "500 c", "500 d", "500 e"]);
    expect(row.cpuMsPerRequest).toBeCloseTo(36_000 / 54_000);
    expect(row.peakRss).toBe(210);
    expect(row.load).toBe("1.5");
    expect(row.notes).toEqual(["drained"]);
    expect(row.rounds).toBe(rounds);
    // An even number of runs: the percentiles are the mean of the middle two.
    expect(rowOf("x", rounds.slice(0, 2)).result.p50).toBe(30);
  });
});
