// A request's hold on its lane's slot, and the wait that gives it back. Under `npm start` admission runs each admitted
// request in the context of its Slot; lib/shared-state wraps a wait on a remote store (Redis, PostgreSQL) in
// `offSlot`, so the slot runs another request meanwhile, and is taken again (before any waiter) when the store answers.
// Without it, a lane of 16 slots whose requests all wait on Redis runs nothing while they wait: the bench measured the
// redis store at 53–64 % of the memory store's /ask throughput with the slots held, 84–136 % with them given back
// (bench/README.md, "Shared state"). Outside admission (Vercel, `next start`, unit tests) nothing holds a slot and
// `offSlot` is the wait itself.
import { AsyncLocalStorage } from "node:async_hooks";
import { processSingleton } from "@/lib/registry";
import type { AdmissionLane } from "./lane";

type SlotState = "held" | "suspended" | "resuming" | "released";

export class Slot {
  private state: SlotState = "held";
  private wake: (() => void) | undefined;

  constructor(
    private readonly lane: AdmissionLane,
    private readonly caller: string,
  ) {}

  /** Gives the slot back for a wait; false when it keeps it (its lane's bounds leave no room to wait apart). */
  suspend(): boolean {
    if (this.state !== "held" || !this.lane.suspend(this.caller)) return false;
    this.state = "suspended";
    return true;
  }

  /** Resolves once the slot is held again (or the request is over: then nothing is taken). */
  resume(): Promise<void> {
    if (this.state !== "suspended") return Promise.resolve();
    this.state = "resuming";
    return new Promise((resolve) => {
      this.wake = resolve;
      this.lane.resume(
        this.caller,
        () => {
          this.state = "held";
          this.wake = undefined;
          resolve();
        },
        () => this.state === "released",
      );
    });
  }

  /** The answer is finished or the connection closed: whatever the request holds goes back to its lane, once. */
  release(): void {
    const was = this.state;
    this.state = "released";
    if (was === "held") this.lane.leave(this.caller);
    else if (was === "suspended") this.lane.drop(this.caller);
    else if (was === "resuming") {
      // The lane skips it when its turn comes; the request's code goes on to its end without a slot.
      this.wake?.();
      this.wake = undefined;
    }
  }
}

// One per process (lib/registry): server.ts's copy of this module sets it, the route bundles' copies read it.
const context = processSingleton("admission.slot", () => ({ storage: new AsyncLocalStorage<Slot>() }));

/** Runs `work` (and everything it awaits) as the request holding `slot`. */
export function runHoldingSlot<T>(slot: Slot, work: () => T): T {
  return context.storage.run(slot, work);
}

/** `wait`, with the current request's slot given back until it settles and taken again before the result returns. */
export function offSlot<T>(wait: Promise<T>): Promise<T> {
  const slot = context.storage.getStore();
  if (slot === undefined || !slot.suspend()) return wait;
  return wait.then(
    async (value) => {
      await slot.resume();
      return value;
    },
    async (error: unknown) => {
      await slot.resume();
      throw error;
    },
  );
}
