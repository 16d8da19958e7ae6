// Request counts and latencies as OpenTelemetry metrics (issue 50 item 5), beside /metrics' Prometheus samples: when an
// OTLP endpoint is configured (getConfig().otlpMetrics), lib/observability/metrics.ts recordRequest hands each request's
// sample here too, and ./metrics-sdk.ts pushes them. Off, each call is one boolean check and nothing of the SDK loads.
// Only @opentelemetry/api is imported: its global registry lets every copy of this module reach the one provider.
import { metrics, type Counter, type Histogram } from "@opentelemetry/api";
import { getConfig } from "@/lib/config";
import { processSingleton } from "@/lib/registry";
import { TRACER_NAME } from "./index";

/** The same bounds as /metrics' request histogram (seconds). */
const DURATION_BOUNDARIES = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

let enabled: boolean | undefined;

/** Whether request metrics are pushed over OTLP in this process (read once). */
export function otlpMetricsOn(): boolean {
  enabled ??= getConfig().otlpMetrics.enabled;
  return enabled;
}

let instruments: { requests: Counter; durations: Histogram } | undefined;

// The provider ./metrics-sdk.ts made, reached by every copy of this module (whether it is there; its flush at shutdown).
const provider = processSingleton<{ flush?: () => Promise<void> }>("tracing.metrics", () => ({}));

/** One request's sample: `http.server.request.duration` (OpenTelemetry's name, seconds) and a count of requests. */
export function recordRequestMetric(method: string, route: string, status: number, seconds: number): void {
  if (!otlpMetricsOn()) return;
  if (instruments === undefined) {
    // The API's global meter provider has no proxy: a meter taken before ./metrics-sdk.ts registered its provider
    // would stay a no-op. Before that (the first moments of a start) nothing is recorded.
    if (provider.flush === undefined) return;
    const meter = metrics.getMeter(TRACER_NAME);
    instruments = {
      requests: meter.createCounter("agent_gate.http.requests", { description: "HTTP requests answered, by method, route template and status." }),
      durations: meter.createHistogram("http.server.request.duration", {
        description: "Time to answer an HTTP request.",
        unit: "s",
        advice: { explicitBucketBoundaries: DURATION_BOUNDARIES },
      }),
    };
  }
  const attributes = { "http.request.method": method, "http.route": route, "http.response.status_code": status };
  instruments.requests.add(1, attributes);
  instruments.durations.record(seconds, attributes);
}

export function registerMetricsFlush(flush: () => Promise<void>): void {
  provider.flush = flush;
}

/** Pushes what is recorded now (shutdown). */
export async function flushMetrics(): Promise<void> {
  await provider.flush?.().catch(() => undefined);
}
