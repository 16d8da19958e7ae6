// The operator settings of issue #17 (janitor, pool, logs, metrics), read from the environment on each call
// so tests can stub them. A start refuses malformed ones (lib/startup/preflight.ts, via operationsProblems).
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const operationsSchema = z.object({
  AUDIT_RETENTION_DAYS: positiveInt(400),
  /** Seconds between the in-process janitor's passes. */
  JANITOR_INTERVAL_SECONDS: positiveInt(300),
  /** Vercel Cron's secret: the cron route answers only `Authorization: Bearer <CRON_SECRET>`. */
  CRON_SECRET: z.string().min(16).optional(),
  /** /metrics answers only when set, and only `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DATABASE_POOL_MAX: positiveInt(10),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(10_000),
});

export type OperationsConfig = z.infer<typeof operationsSchema>;

/** Empty strings count as unset (a blank line in .env). */
function presentEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(operationsSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== "") out[key] = value.trim();
  }
  return out;
}

/** One problem per malformed operator setting (for the start checks): the variable and what it must be. */
export function operationsProblems(env: Record<string, string | undefined> = process.env): { variable: string; detail: string }[] {
  const parsed = operationsSchema.safeParse(presentEnv(env));
  if (parsed.success) return [];
  const problems = new Map<string, string>();
  for (const issue of parsed.error.issues) {
    const variable = String(issue.path[0] ?? "environment");
    if (!problems.has(variable)) problems.set(variable, issue.message);
  }
  return [...problems].map(([variable, message]) => ({ variable, detail: `is malformed: ${message}` }));
}

/** The operator settings; throws with the variable's name when one is malformed. */
export function operationsConfig(env: NodeJS.ProcessEnv = process.env): OperationsConfig {
  const parsed = operationsSchema.safeParse(presentEnv(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${String(issue?.path[0] ?? "setting")}: ${issue?.message ?? "malformed"}`);
  }
  return parsed.data;
}
