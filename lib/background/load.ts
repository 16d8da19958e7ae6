// Whether requests are being served: the signal background work (./pacing) yields to. observe.ts stamps
// the time of every request's start and end (times it already reads, so the hot path gains one store and no
// clock read); requests are "active" while the last stamp is recent. Under a steady load the stamps come
// every few milliseconds, so background work sees it at once; a long request that merely waits (a cron call,
// a slow upstream) does not keep it at the floor once its start is past the window.
import { processSingleton } from "@/lib/registry";

/** A request started or ended this recently (ms): the server is serving requests. */
export const BUSY_WINDOW_MS = 100;

// In lib/registry: Next bundles route modules (the cron routes' passes) apart from the server entry (which
// observes the requests); all must read one stamp.
const load = processSingleton("background.load", () => ({ lastActivity: Number.NEGATIVE_INFINITY }));

/** A request started or ended at `at` (performance.now() time). */
export function noteRequestActivity(at: number): void {
  load.lastActivity = at;
}

/** True while requests are being served (one started or ended in the last BUSY_WINDOW_MS). */
export function requestsActive(now: number = performance.now()): boolean {
  return now - load.lastActivity < BUSY_WINDOW_MS;
}
