/** Injectable time source: lib functions take a Clock so tests can move time (600 s, 3600 s, 24 h expiries). */
export interface Clock {
  now(): Date;
}

/**
 * The runtime's Date as this module found it. Next replaces the global Date with a wrapper that asks, on every
 * construction, whether a prerender is reading the clock (several times the cost of the date itself); where
 * this module is loaded before Next (the production server's bundle) the clock does without it, and inside
 * Next's own bundles it is Next's Date as before.
 */
const RuntimeDate = Date;

export const systemClock: Clock = { now: () => new RuntimeDate() };

/**
 * The Date at `value` (epoch milliseconds, or a date text as Date parses it), made with the runtime's Date as the
 * system clock's are: for dates read from the database and computed on request paths.
 */
export function runtimeDate(value: number | string): Date {
  return new RuntimeDate(value);
}

/** Date.now() of the runtime's Date (see RuntimeDate): for timestamps taken on every request. */
export function runtimeNow(): number {
  return RuntimeDate.now();
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    this.current = typeof start === "number" ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current += seconds * 1000;
  }
  set(date: Date): void {
    this.current = date.getTime();
  }
}
