// A RATE_LIMIT_* allowance (docs/limits.md). The table of budgets and their variables is lib/rate-limit/budgets.ts;
// the value is parsed here, with the rest of the configuration.

/** The variable's allowance: unset (blank too), a whole number from 1, or "invalid". */
export function parseAllowance(value: string | undefined): number | undefined | "invalid" {
  if (value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (!/^[1-9][0-9]{0,9}$/.test(trimmed)) return "invalid";
  return Number(trimmed);
}
