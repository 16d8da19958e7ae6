// What the groups of settings with a schema of their own (./operations.ts, ./tracing.ts) share: which of their
// variables are set, and one start problem per malformed variable.
import type { z } from "zod";

type Variables = Readonly<Record<string, string | undefined>>;

/** The variables of `names` that are set, trimmed; empty strings count as unset (a blank line in .env). */
export function presentVariables(env: Variables, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of names) {
    const value = env[key];
    if (value !== undefined && value.trim() !== "") out[key] = value.trim();
  }
  return out;
}

/** One problem per malformed variable of `schema` (for the start checks): the variable and what it must be. */
export function malformedVariables(schema: z.ZodObject, env: Variables): { variable: string; detail: string }[] {
  const parsed = schema.safeParse(presentVariables(env, Object.keys(schema.shape)));
  if (parsed.success) return [];
  const problems = new Map<string, string>();
  for (const issue of parsed.error.issues) {
    const variable = String(issue.path[0] ?? "environment");
    if (!problems.has(variable)) problems.set(variable, issue.message);
  }
  return [...problems].map(([variable, message]) => ({ variable, detail: `is malformed: ${message}` }));
}
