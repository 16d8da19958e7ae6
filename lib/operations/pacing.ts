// Background work (the janitor's deletes, webhook fan-out and sends) shares the event loop with requests.
// A Pacer keeps it to a duty cycle: after each unit of work it pauses in proportion to the time the unit
// took (work ≤ dutyCycle of wall time), so a backlog is worked off steadily without holding the loop.
// The clock and the sleep are injectable: unit tests run the pacing without waiting.
import { setImmediate as nextTurn, setTimeout as sleepFor } from "node:timers/promises";

export interface PacingOptions {
  /** Share of wall time the work may take, in (0, 1]; 1 means only a turn between units. Default 0.2. */
  dutyCycle?: number;
  /** Longest pause after one unit (a slow unit, e.g. a GC pause, must not stall the work). Default 2000 ms. */
  maxPauseMs?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
  /** Waits that many milliseconds (default a timer; 0 means one event-loop turn). */
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_DUTY_CYCLE = 0.2;
export const DEFAULT_MAX_PAUSE_MS = 2000;

const defaultSleep = (ms: number): Promise<void> => (ms > 0 ? sleepFor(ms) : nextTurn());

export class Pacer {
  private readonly dutyCycle: number;
  private readonly maxPauseMs: number;
  readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: PacingOptions = {}) {
    const duty = options.dutyCycle ?? DEFAULT_DUTY_CYCLE;
    this.dutyCycle = Number.isFinite(duty) && duty > 0 ? Math.min(duty, 1) : DEFAULT_DUTY_CYCLE;
    this.maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** The pause owed after a unit of `workMs`: workMs × (1 − d) / d, at most maxPauseMs. */
  pauseFor(workMs: number): number {
    const pause = (Math.max(0, workMs) * (1 - this.dutyCycle)) / this.dutyCycle;
    return Math.min(Math.round(pause), this.maxPauseMs);
  }

  /** Runs one unit of work and returns its result with the time it took. */
  async measure<T>(work: () => Promise<T>): Promise<{ result: T; workMs: number }> {
    const started = this.now();
    const result = await work();
    return { result, workMs: this.now() - started };
  }

  /** Pauses after a unit of `workMs` (always at least one event-loop turn). */
  rest(workMs: number): Promise<void> {
    return this.sleep(this.pauseFor(workMs));
  }
}
