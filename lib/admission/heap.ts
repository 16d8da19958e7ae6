// How full the V8 heap is, as a share of its limit (the limit npm start sets: scripts/start.sh). Sampled on a timer,
// not per request: getHeapStatistics() walks every space, and a share a few milliseconds old decides as well.
import v8 from "node:v8";

export type HeapReader = () => { used: number; limit: number };

const readV8Heap: HeapReader = () => {
  const stats = v8.getHeapStatistics();
  return { used: stats.used_heap_size, limit: stats.heap_size_limit };
};

export class HeapPressure {
  private current = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly read: HeapReader = readV8Heap,
    private readonly intervalMs = 100,
  ) {}

  /** Heap in use over the heap's limit, 0..1, as of the last sample. */
  share(): number {
    return this.current;
  }

  sample(): number {
    const { used, limit } = this.read();
    this.current = limit > 0 ? used / limit : 0;
    return this.current;
  }

  start(): void {
    if (this.timer) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
