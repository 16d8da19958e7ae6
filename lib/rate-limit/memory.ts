// In-memory fixed windows for the hot anonymous surfaces (/mcp, /mcp/docs, /a2a, /ask, the map's pages, the
// lookups, the JWT-bearer exchange): a Map lookup per message, no database round trip. Counters live per process
// (a deployment of N instances grants N times each allowance; docs/limits.md), in lib/registry so that every
// bundle of the process (each Next route, the node:http front) shares them.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { processSingleton } from "@/lib/registry";
import { budgetRule, limitFor, type BudgetName, type RateLimitRule } from "./budgets";

interface Window {
  count: number;
  /** Epoch milliseconds at which this window ends. */
  resetAt: number;
}

/** Most keys one counter holds: beyond, the oldest windows are dropped (bounded memory under a flood of callers). */
export const MAX_KEYS_PER_BUDGET = 100_000;

/**
 * Fixed windows per key. A window is (re)inserted when it starts, and every window of one counter has the
 * same length, so the Map's insertion order is the order of expiry: pruning stops at the first live window.
 */
export class WindowCounter {
  private readonly windows = new Map<string, Window>();
  private nextPruneAt = 0;

  constructor(
    readonly rule: RateLimitRule,
    private readonly maxKeys: number = MAX_KEYS_PER_BUDGET,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** Seconds until `key` may spend `cost` units, or 0 when it may now. Counts nothing. */
  wait(key: string, cost: number, nowMs: number): number {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= nowMs) return cost <= limitFor(this.rule, key) ? 0 : Math.max(1, this.rule.windowSeconds);
    return window.count + cost <= limitFor(this.rule, key) ? 0 : Math.max(1, Math.ceil((window.resetAt - nowMs) / 1000));
  }

  /** Spends `cost` units of `key`'s window (call after wait() said 0). */
  spend(key: string, cost: number, nowMs: number): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > nowMs) {
      window.count += cost;
      return;
    }
    if (window) this.windows.delete(key);
    this.prune(nowMs);
    this.windows.set(key, { count: cost, resetAt: nowMs + this.rule.windowSeconds * 1000 });
  }

  private prune(nowMs: number): void {
    if (nowMs >= this.nextPruneAt) {
      this.nextPruneAt = nowMs + 1000;
      for (const [key, window] of this.windows) {
        if (window.resetAt > nowMs) break;
        this.windows.delete(key);
      }
    }
    while (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next();
      if (oldest.done) break;
      this.windows.delete(oldest.value);
    }
  }
}

const counters = processSingleton("rate-limit.memory", () => new Map<BudgetName, WindowCounter>());

/** The process's counter of a budget (its allowance read from the environment once). */
export function memoryCounter(name: BudgetName): WindowCounter {
  let counter = counters.get(name);
  if (!counter) {
    counter = new WindowCounter(budgetRule(name));
    counters.set(name, counter);
  }
  return counter;
}

/** Forgets every in-memory counter (tests that change the environment between cases). */
export function resetMemoryBudgets(): void {
  counters.clear();
}

export interface BudgetCharge {
  budget: BudgetName;
  key: string;
  /** Units this request spends (messages); 0 charges nothing. */
  cost: number;
}

/**
 * Spends every charge, or none: when one budget lacks room, nothing is counted and the answer is the number
 * of seconds to wait (the longest of the refusing budgets). null: allowed and counted.
 */
export function chargeBudgets(charges: readonly BudgetCharge[], clock: Clock = systemClock): { retryAfterSeconds: number } | null {
  const nowMs = clock.now().getTime();
  let wait = 0;
  for (const charge of charges) if (charge.cost > 0) wait = Math.max(wait, memoryCounter(charge.budget).wait(charge.key, charge.cost, nowMs));
  if (wait > 0) return { retryAfterSeconds: wait };
  for (const charge of charges) if (charge.cost > 0) memoryCounter(charge.budget).spend(charge.key, charge.cost, nowMs);
  return null;
}
