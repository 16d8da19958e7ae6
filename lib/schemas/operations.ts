// Responses of the operator endpoints (issue #17): /healthz and /readyz. Used by lib/operator/health.ts,
// the tests and OpenAPI.
import { z } from "zod";

export const healthCheckStatusSchema = z
  .enum(["ok", "fail", "not_checked"])
  .meta({ id: "HealthCheckStatus", description: "ok, fail, or not_checked (an earlier check it depends on failed)." });

export const livenessResponseSchema = z
  .object({ status: z.literal("ok"), checks: z.object({ process: z.literal("ok") }) })
  .meta({ id: "LivenessResponse", description: "The process answers (no database access)." });

export const readinessResponseSchema = z
  .object({
    status: z.enum(["ok", "fail"]),
    checks: z.object({
      database: healthCheckStatusSchema,
      migrations: healthCheckStatusSchema,
      signing_keys: healthCheckStatusSchema,
      shared_state: z
        .enum(["ok", "degraded"])
        .meta({ description: "degraded: the shared store does not answer in time, and this instance counts its budgets and replay checks alone meanwhile (still ready)." }),
    }),
    shared_state_store: z
      .enum(["memory", "postgres", "redis"])
      .meta({ description: "Where the fleet's budgets and replay checks are kept (SHARED_STATE, REDIS_URL): memory holds for this instance only." }),
  })
  .meta({
    id: "ReadinessResponse",
    description: "Ready when the database answers within 1 s, every migration is applied and the signing keys load; a degraded shared store leaves it ready.",
  });

export type LivenessResponse = z.infer<typeof livenessResponseSchema>;
export type ReadinessResponse = z.infer<typeof readinessResponseSchema>;
export type HealthCheckStatus = z.infer<typeof healthCheckStatusSchema>;
