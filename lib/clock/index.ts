/** Injectable time source: lib functions take a Clock so tests can move time (600 s, 3600 s, 24 h expiries). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

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
