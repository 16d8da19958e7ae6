// Background work (the janitor's deletes, webhook fan-out and sends) shares the event loop with requests.
// A BackgroundPacer keeps it to a duty cycle: after each unit of work it pauses in proportion to the time the unit
// took (work ≤ dutyCycle of wall time), so a backlog is worked off steadily without holding the loop.
// The duty cycle depends on the load, like PostgreSQL's cost-based vacuum delay: while requests are being
// served (./load) the work drops to a small floor (busyDutyCycle, 3 % by default) and its callers shrink
// their units (a unit runs on the loop: its length is the wait a request can see); when the server is idle
// it runs at its own dutyCycle again. The floor is never zero (and a pause while busy at most half a second):
// a backlog keeps draining under a sustained load, only slower. The clock, the sleep and the load signal are injectable: unit tests run without waiting.
import { setImmediate as nextTurn, setTimeout as sleepFor } from "node:timers/promises";
import { requestsActive } from "./load";

export interface PacingOptions {
  /** Share of wall time the work may take while the server is idle, in (0, 1]; 1 means only a turn between units. Default 0.2. */
  dutyCycle?: number;
  /** Share of wall time while requests are being served, in (0, dutyCycle]: the floor that keeps work going. Default 0.03. */
  busyDutyCycle?: number;
  /** Longest pause after one unit (a slow unit, e.g. a GC pause, must not stall the work). Default 2000 ms. */
  maxPauseMs?: number;
  /**
   * Longest pause while requests are being served. Default 500 ms: under a saturating load a unit's wall time
   * is mostly its wait for the loop (a small unit measures tens of ms), and the floor must still move a
   * backlog: at least one small unit every half second.
   */
  busyMaxPauseMs?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
  /** Waits that many milliseconds (default a timer; 0 means one event-loop turn). */
  sleep?: (ms: number) => Promise<void>;
  /** True while requests are being served (default ./load's requestsActive). */
  busy?: () => boolean;
}

export const DEFAULT_DUTY_CYCLE = 0.2;
export const DEFAULT_BUSY_DUTY_CYCLE = 0.03;
export const DEFAULT_MAX_PAUSE_MS = 2000;
export const DEFAULT_BUSY_MAX_PAUSE_MS = 500;

const defaultSleep = (ms: number): Promise<void> => (ms > 0 ? sleepFor(ms) : nextTurn());
const share = (value: number | undefined, fallback: number): number => (value !== undefined && Number.isFinite(value) && value > 0 ? Math.min(value, 1) : fallback);

export class BackgroundPacer {
  private readonly dutyCycle: number;
  private readonly busyDutyCycle: number;
  private readonly maxPauseMs: number;
  private readonly busyMaxPauseMs: number;
  readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** True while requests are being served: callers use it to pick a smaller unit. */
  readonly busy: () => boolean;

  constructor(options: PacingOptions = {}) {
    this.dutyCycle = share(options.dutyCycle, DEFAULT_DUTY_CYCLE);
    this.busyDutyCycle = Math.min(share(options.busyDutyCycle, DEFAULT_BUSY_DUTY_CYCLE), this.dutyCycle);
    this.maxPauseMs = options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
    this.busyMaxPauseMs = Math.min(options.busyMaxPauseMs ?? DEFAULT_BUSY_MAX_PAUSE_MS, this.maxPauseMs);
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? defaultSleep;
    this.busy = options.busy ?? (() => requestsActive());
  }

  /** The pause owed after a unit of `workMs`: workMs × (1 − d) / d (d: the duty cycle for the load now), capped. */
  pauseFor(workMs: number, busy: boolean = this.busy()): number {
    const duty = busy ? this.busyDutyCycle : this.dutyCycle;
    const pause = (Math.max(0, workMs) * (1 - duty)) / duty;
    return Math.min(Math.round(pause), busy ? this.busyMaxPauseMs : this.maxPauseMs);
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
