// A scenario's row in the bench's table, from one run or from several (bench/run.ts --rounds: a scenario compared
// with a bare server alternates with it, and each side's row combines its runs).
import type { LoadResult } from "./load.mjs";

/** One run of a scenario. */
export interface Round {
  result: LoadResult;
  peakRss: number;
  /** The server's CPU time (user + system, its process tree) over the run, warm-up included. */
  cpuMs: number;
  load: string;
  /** What the scenario's side work got done (bench/side-work.ts). */
  notes?: string[];
}

export interface Row {
  name: string;
  result: LoadResult;
  peakRss: number;
  load: string;
  ratio: number | null;
  /** Server CPU time per answered request: unlike req/s, barely affected by other work on the machine. */
  cpuMsPerRequest: number;
  /** What the scenario's side work got done (bench/side-work.ts). */
  notes?: string[];
  /** Its runs: one, or --rounds for a scenario compared with a bare server (and for that server); none for mixed load's. */
  rounds: Round[];
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * A row from its runs, all of the same duration: requests/s is their mean (the requests over the time), CPU per
 * request all the CPU over all the requests, p50 and p99 the median run's (a percentile of merged runs would need
 * their histograms), the peak RSS the highest, errors and sheds summed.
 */
export function rowOf(name: string, rounds: Round[]): Row {
  const sum = (pick: (round: Round) => number): number => rounds.reduce((total, round) => total + pick(round), 0);
  const answered = sum((r) => r.result.requests + r.result.warmupRequests);
  const result: LoadResult = {
    requests: sum((r) => r.result.requests),
    warmupRequests: sum((r) => r.result.warmupRequests),
    requestsPerSecond: sum((r) => r.result.requestsPerSecond) / rounds.length,
    p50: median(rounds.map((r) => r.result.p50)),
    p99: median(rounds.map((r) => r.result.p99)),
    errors: sum((r) => r.result.errors),
    sheds: sum((r) => r.result.sheds),
    errorSamples: rounds.flatMap((r) => r.result.errorSamples).slice(0, 5),
  };
  const notes = rounds.flatMap((r) => r.notes ?? []);
  return {
    name,
    result,
    peakRss: Math.max(...rounds.map((r) => r.peakRss)),
    load: rounds[rounds.length - 1]!.load,
    ratio: null,
    cpuMsPerRequest: sum((r) => r.cpuMs) / Math.max(1, answered),
    ...(notes.length > 0 ? { notes } : {}),
    rounds,
  };
}
