// Nonces of accepted Web Bot Auth signatures, each kept until its signature's window has closed (after that the
// window itself refuses a replay). Bounded: when full, the entries whose window closed go first, then the oldest.
// Per process, as the signature windows are minutes long: several instances each refuse their own replays.

const MAX_NONCES = 100_000;

export class NonceMemory {
  private readonly until = new Map<string, number>();

  constructor(private readonly limit = MAX_NONCES) {}

  /** True the first time `key` is seen (kept until `until`, epoch seconds), false while it is kept. */
  remember(key: string, until: number, now: number): boolean {
    const known = this.until.get(key);
    if (known !== undefined && known >= now) return false;
    if (this.until.size >= this.limit) this.prune(now);
    this.until.set(key, until);
    return true;
  }

  get size(): number {
    return this.until.size;
  }

  private prune(now: number): void {
    for (const [key, until] of this.until) if (until < now) this.until.delete(key);
    // Still full: drop the oldest insertions (Map keeps insertion order).
    const excess = this.until.size - Math.floor(this.limit * 0.9);
    if (excess <= 0) return;
    let dropped = 0;
    for (const key of this.until.keys()) {
      if (dropped++ >= excess) break;
      this.until.delete(key);
    }
  }
}
