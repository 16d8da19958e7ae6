// Charges of the budgets of lib/rate-limit/budgets.ts that are not kept in the database table of ./index.ts:
// - "shared" budgets (the anonymous surfaces, the lookups, the JWT-bearer exchange: README "Limits", kept "fleet")
//   go to lib/shared-state, which counts them for the whole deployment (synchronously with its memory store);
// - "instance" budgets (probes) protect this process and stay in its memory.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { processSingleton } from "@/lib/registry";
import { acceptOnceAndCharge, chargeCounters, mapMaybe, type ChargeOutcome, type CounterCharge, type MaybePromise, type OnceClaim } from "@/lib/shared-state";
import { MemoryCounters } from "@/lib/shared-state/memory";
import { BUDGETS, budgetRule, limitFor, type BudgetName, type RateLimitRule } from "./budgets";

type BudgetsKept<Store> = { [Name in BudgetName]: (typeof BUDGETS)[Name]["store"] extends Store ? Name : never }[BudgetName];
/** The budgets lib/shared-state counts for the fleet. */
export type SharedBudgetName = BudgetsKept<"shared">;
/** The budgets each process counts for itself. */
export type InstanceBudgetName = BudgetsKept<"instance">;

export interface BudgetCharge {
  budget: SharedBudgetName;
  key: string;
  /** Units this request spends (messages); 0 charges nothing. */
  cost: number;
}

// Each budget's rule, made once per copy of this module (its limit is read from the configuration when used).
const rules = new Map<BudgetName, RateLimitRule>();
function ruleOf(name: BudgetName): RateLimitRule {
  let rule = rules.get(name);
  if (rule === undefined) {
    rule = budgetRule(name);
    rules.set(name, rule);
  }
  return rule;
}

function counterCharge(charge: { budget: BudgetName; key: string; cost: number }): CounterCharge {
  const rule = ruleOf(charge.budget);
  return { scope: rule.name, key: charge.key, cost: charge.cost, limit: limitFor(rule, charge.key), windowSeconds: rule.windowSeconds };
}

/** The charges as the shared state takes them. */
export function counterCharges(charges: readonly BudgetCharge[]): CounterCharge[] {
  return charges.map(counterCharge);
}

/**
 * Spends every charge, or none, for the whole fleet: when one budget lacks room, nothing is counted and the answer
 * is the number of seconds to wait (the longest of the refusing budgets). null: allowed and counted. Synchronous
 * with the memory store; a promise with the postgres and redis stores.
 */
export function chargeBudgets(charges: readonly BudgetCharge[], clock: Clock = systemClock): MaybePromise<ChargeOutcome> {
  return chargeCounters(counterCharges(charges), clock);
}

/** Who a public read is counted as (lib/agent-identity publicCaller). */
export interface ChargedCaller {
  /** A verified agent's key, or the address's. */
  readonly key: string;
  /** The address's key: the request's key when its nonce turns out to be a replay. */
  readonly addressKey: string;
  /** A verified signature's nonce not accepted yet: accepted here, with the charge, in one round trip. */
  readonly nonce?: OnceClaim;
}

/** A charge's outcome and the key the request was counted under. */
export interface CallerCharge {
  refused: ChargeOutcome;
  key: string;
}

/**
 * Charges a public read's budgets (all or none) under its caller's key. A verified signature's nonce is accepted in
 * the same round trip to the shared store; a replayed one makes the request an unsigned one, charged under its
 * address (Web Bot Auth on public reads: a signature that is not accepted is answered and counted as unsigned).
 */
export function chargeCaller(caller: ChargedCaller, chargesFor: (key: string) => BudgetCharge[], clock: Clock = systemClock): MaybePromise<CallerCharge> {
  if (caller.nonce === undefined) return mapMaybe(chargeBudgets(chargesFor(caller.key), clock), (refused) => ({ refused, key: caller.key }));
  return acceptOnceAndCharge(caller.nonce, counterCharges(chargesFor(caller.key)), clock).then(async (outcome) => {
    if (outcome.accepted) return { refused: outcome.refused, key: caller.key };
    return { refused: await chargeBudgets(chargesFor(caller.addressKey), clock), key: caller.addressKey };
  });
}

// In lib/registry: every bundle of the process (each Next route, the node:http front) counts in the same windows.
const instanceCounters = processSingleton("rate-limit.instance", () => new MemoryCounters());

/** Spends one unit of an instance budget of `key` in this process's memory; false when it has no room (nothing counted). */
export function chargeInstanceBudget(budget: InstanceBudgetName, key: string, clock: Clock = systemClock): boolean {
  return instanceCounters.charge([counterCharge({ budget, key, cost: 1 })], clock.now().getTime()) === null;
}

/** Forgets this process's instance windows (tests that change the environment between cases). */
export function resetInstanceBudgets(): void {
  instanceCounters.clear();
}
