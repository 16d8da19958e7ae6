// The operator settings of issue #17 (janitor, pool, logs, metrics): part of the one configuration
// (`getConfig().operations`); a start refuses malformed ones (checkConfig, ./schema.ts).
import { z } from "zod";
import { malformedVariables, presentVariables } from "./variables";

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

export interface OperationsConfig {
  /** AUDIT_RETENTION_DAYS: the janitor deletes audit rows older than this. */
  auditRetentionDays: number;
  /** JANITOR_INTERVAL_SECONDS: seconds between the in-process janitor's passes. */
  janitorIntervalSeconds: number;
  /** CRON_SECRET: the cron route answers only `Authorization: Bearer <CRON_SECRET>`. */
  cronSecret: string | undefined;
  /** METRICS_TOKEN: /metrics answers only when set, and only `Authorization: Bearer <METRICS_TOKEN>`. */
  metricsToken: string | undefined;
  logLevel: z.output<typeof operationsSchema.shape.LOG_LEVEL>;
  databasePoolMax: number;
  databaseStatementTimeoutMs: number;
}

/** One problem per malformed operator setting (for the start checks): the variable and what it must be. */
export function operationsProblems(env: Readonly<Record<string, string | undefined>>): { variable: string; detail: string }[] {
  return malformedVariables(operationsSchema, env);
}

/** The operator settings; throws with the variable's name when one is malformed (checkConfig refuses those first). */
export function operationsFrom(env: Readonly<Record<string, string | undefined>>): OperationsConfig {
  const parsed = operationsSchema.safeParse(presentVariables(env, Object.keys(operationsSchema.shape)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${String(issue?.path[0] ?? "setting")}: ${issue?.message ?? "malformed"}`);
  }
  const settings = parsed.data;
  return {
    auditRetentionDays: settings.AUDIT_RETENTION_DAYS,
    janitorIntervalSeconds: settings.JANITOR_INTERVAL_SECONDS,
    cronSecret: settings.CRON_SECRET,
    metricsToken: settings.METRICS_TOKEN,
    logLevel: settings.LOG_LEVEL,
    databasePoolMax: settings.DATABASE_POOL_MAX,
    databaseStatementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
  };
}
