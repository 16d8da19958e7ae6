// OpenTelemetry's standard variables (issue 43 item 3, lib/tracing): an OTLP endpoint turns traces on, and metrics
// (issue 50 item 5: request counts and latencies pushed, so a fleet's numbers add up in the collector). Part of the one
// configuration (getConfig().tracing; the SDK is handed what it needs, it reads no variable of ours), checked with it.
import { z } from "zod";
import { described } from "./describe";
import { malformedVariables, presentVariables } from "./variables";

const httpUrl = z
  .string()
  .url("must be an http(s) URL, e.g. http://collector:4318")
  .refine((value) => /^https?:\/\//i.test(value), "must be an http(s) URL, e.g. http://collector:4318");

const PROTOCOL_RULE = { message: "must be http/protobuf or http/json (gRPC is not offered)" } as const;

export const tracingSchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: described(httpUrl.optional(), {
    group: "observability",
    show: "url",
    default: "none (no trace is made, and nothing of the OpenTelemetry SDK is loaded)",
    deploy: "for traces: your OTLP/HTTP collector, e.g. `http://collector:4318`",
    description:
      "Turns on OpenTelemetry traces and metrics, in every start mode: spans are posted over OTLP/HTTP to `{endpoint}/v1/traces`, request counts and latencies to `{endpoint}/v1/metrics`.",
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: described(httpUrl.optional(), {
    group: "observability",
    show: "url",
    description: "The full URL spans are posted to (turns traces on too; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`).",
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: described(z.enum(["http/protobuf", "http/json"], PROTOCOL_RULE).optional(), {
    group: "observability",
    default: "`http/protobuf`",
    description: "`http/protobuf` or `http/json` (gRPC is not offered).",
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: described(z.enum(["http/protobuf", "http/json"], PROTOCOL_RULE).optional(), {
    group: "observability",
    default: "`OTEL_EXPORTER_OTLP_PROTOCOL`",
    description: "The same for traces only; wins over `OTEL_EXPORTER_OTLP_PROTOCOL`.",
  }),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: described(httpUrl.optional(), {
    group: "observability",
    show: "url",
    description:
      "The full URL metrics are posted to (turns the OTLP metrics on too; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`, with which they go to `{endpoint}/v1/metrics`). Request counts and latencies are pushed, so a fleet's numbers add up in the collector; `/metrics` stays, per instance.",
  }),
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: described(z.enum(["http/protobuf", "http/json"], PROTOCOL_RULE).optional(), {
    group: "observability",
    default: "`OTEL_EXPORTER_OTLP_PROTOCOL`",
    description: "The same for metrics only; wins over `OTEL_EXPORTER_OTLP_PROTOCOL`.",
  }),
  OTEL_METRIC_EXPORT_INTERVAL: described(
    z
      .string()
      .regex(/^[0-9]+$/, "must be a whole number of milliseconds from 100 to 3600000")
      .transform(Number)
      .refine((n) => n >= 100 && n <= 3_600_000, "must be a whole number of milliseconds from 100 to 3600000")
      .default(60_000),
    { group: "observability", description: "Milliseconds between two exports of the metrics (100 to 3600000; OpenTelemetry's default, 60000)." },
  ),
  OTEL_SERVICE_NAME: described(z.string().min(1).max(200).default("agent-gate"), { group: "observability", description: "The spans' `service.name`." }),
  OTEL_BSP_SCHEDULE_DELAY: described(
    z
      .string()
      .regex(/^[0-9]+$/, "must be a whole number of milliseconds from 1 to 600000")
      .transform(Number)
      .refine((n) => n >= 1 && n <= 600_000, "must be a whole number of milliseconds from 1 to 600000")
      .default(5000),
    { group: "observability", description: "Milliseconds between two exports of the spans ended meanwhile (1 to 600000)." },
  ),
});

export type TracingConfig =
  | { enabled: false }
  | {
      enabled: true;
      /** Where spans are posted (the signal path included). */
      tracesUrl: string;
      protocol: "http/protobuf" | "http/json";
      serviceName: string;
      exportDelayMs: number;
    };

/** One problem per malformed tracing variable (for the start checks). */
export function tracingProblems(env: Readonly<Record<string, string | undefined>>): { variable: string; detail: string }[] {
  return malformedVariables(tracingSchema, env);
}

/** The OTEL_* variables, parsed; undefined when one is malformed (a start refuses that first). */
function otlpVariables(env: Readonly<Record<string, string | undefined>>): z.infer<typeof tracingSchema> | undefined {
  const parsed = tracingSchema.safeParse(presentVariables(env, Object.keys(tracingSchema.shape)));
  return parsed.success ? parsed.data : undefined;
}

/** A signal's own endpoint, else the base endpoint with the signal's path (OTLP/HTTP: /v1/traces, /v1/metrics). */
function signalUrl(own: string | undefined, base: string | undefined, signal: "traces" | "metrics"): string | undefined {
  return own ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/${signal}`);
}

/** The tracing settings; off when neither endpoint is set, or when one is malformed (a start refuses that first). */
export function tracingFrom(env: Readonly<Record<string, string | undefined>>): TracingConfig {
  const raw = otlpVariables(env);
  const tracesUrl = raw && signalUrl(raw.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, raw.OTEL_EXPORTER_OTLP_ENDPOINT, "traces");
  if (raw === undefined || tracesUrl === undefined) return { enabled: false };
  return {
    enabled: true,
    tracesUrl,
    protocol: raw.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? raw.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    serviceName: raw.OTEL_SERVICE_NAME,
    exportDelayMs: raw.OTEL_BSP_SCHEDULE_DELAY,
  };
}

export type OtlpMetricsConfig =
  | { enabled: false }
  | {
      enabled: true;
      /** Where metrics are posted (the signal path included). */
      metricsUrl: string;
      protocol: "http/protobuf" | "http/json";
      serviceName: string;
      exportIntervalMs: number;
    };

/** The metrics settings; off when neither endpoint is set, or when one is malformed (a start refuses that first). */
export function otlpMetricsFrom(env: Readonly<Record<string, string | undefined>>): OtlpMetricsConfig {
  const raw = otlpVariables(env);
  const metricsUrl = raw && signalUrl(raw.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, raw.OTEL_EXPORTER_OTLP_ENDPOINT, "metrics");
  if (raw === undefined || metricsUrl === undefined) return { enabled: false };
  return {
    enabled: true,
    metricsUrl,
    protocol: raw.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? raw.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    serviceName: raw.OTEL_SERVICE_NAME,
    exportIntervalMs: raw.OTEL_METRIC_EXPORT_INTERVAL,
  };
}
