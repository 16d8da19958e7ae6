// Every setting of the service: the configuration's variables (lib/config, each with its description) and the
// RATE_LIMIT_* allowances of the budget table (lib/rate-limit). What the start knows, `npm run config` prints and
// docs/configuration.md lists (npm run docs:config).
import { configurationVariables, type VariableReference } from "@/lib/config/reference";
import { BUDGETS, type BudgetDefinition } from "@/lib/rate-limit";

export interface Setting extends Omit<VariableReference, "group"> {
  group: VariableReference["group"] | "rateLimits";
}

/** "minute", "10 minutes", "hour", "15 minutes". */
export function windowWords(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

function allowanceSetting(budget: BudgetDefinition): Setting {
  const kept =
    budget.store === "instance"
      ? "counted by each instance (it protects one process)"
      : budget.store === "shared"
        ? "counted for the whole fleet in the shared state (`SHARED_STATE`)"
        : "counted for the whole fleet in the database";
  return {
    name: budget.env,
    group: "rateLimits",
    defaultText: `\`${budget.limit}\` per ${windowWords(budget.windowSeconds)}`,
    description: `The allowance of the ${budget.name} budget: each ${budget.counts}, keyed by ${budget.key}, ${kept}. A whole number from 1; the window stays.`,
  };
}

/** Every setting, the configuration's in schema order, then the allowances in the budget table's order. */
export function allSettings(): Setting[] {
  return [...configurationVariables(), ...Object.values(BUDGETS).map((budget) => allowanceSetting(budget))];
}
