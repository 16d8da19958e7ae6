// The operator settings of issue #17 (janitor, pool, logs, metrics): part of the one configuration
// (`getConfig().operations`); a start refuses malformed ones (checkConfig, ./schema.ts).
import { z } from "zod";
import { described } from "./describe";
import { malformedVariables, presentVariables } from "./variables";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const operationsSchema = z.object({
  AUDIT_RETENTION_DAYS: described(positiveInt(400), { group: "background", description: "The janitor removes audit events older than this many days." }),
  JANITOR_INTERVAL_SECONDS: described(positiveInt(300), { group: "background", description: "Seconds between the passes of npm start's janitor loop." }),
  CRON_SECRET: described(z.string().min(16).optional(), {
    group: "background",
    show: "secret",
    default: "none (the cron routes refuse every call)",
    deploy: "on Vercel: a random string, so the daily janitor and webhook passes run",
    description: "Vercel Cron's secret (at least 16 characters): `/api/cron/janitor` and `/api/cron/webhooks` answer only `Authorization: Bearer <CRON_SECRET>`.",
  }),
  METRICS_TOKEN: described(z.string().min(16).optional(), {
    group: "observability",
    show: "secret",
    default: "none (`/metrics` answers 404)",
    deploy: "to scrape `/metrics`: a random string",
    description: "Turns `/metrics` on (Prometheus text); it answers only `Authorization: Bearer <METRICS_TOKEN>` (at least 16 characters).",
  }),
  LOG_LEVEL: described(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"), {
    group: "observability",
    description: "The least level of the JSON log lines written: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.",
  }),
  DATABASE_POOL_MAX: described(positiveInt(10), {
    group: "database",
    deploy: "on Vercel: `2` to `5` connections per instance",
    description: "PostgreSQL: the most connections one instance opens (on Vercel each function instance has its own pool: keep it small, 2 to 5, behind the provider's pooler).",
  }),
  DATABASE_STATEMENT_TIMEOUT_MS: described(positiveInt(10_000), {
    group: "database",
    description: "PostgreSQL: milliseconds after which the server cancels a statement.",
  }),
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
