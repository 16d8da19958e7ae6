// The OpenTelemetry metrics SDK, loaded only when an OTLP endpoint is configured (instrumentation.ts imports this
// module dynamically, once per process, in every start mode; tests/unit/db/tracing-off.test.ts checks that nothing of
// it loads otherwise). It registers a meter provider through @opentelemetry/api's global registry that pushes the
// request counts and latencies ./metrics.ts records, every OTEL_METRIC_EXPORT_INTERVAL, over OTLP/HTTP: each instance
// pushes its own, and a fleet's numbers add up in the collector (cumulative sums per instance: `service.instance.id`
// tells them apart). /metrics (prom-client) stays, for one host.
import { randomUUID } from "node:crypto";
import { metrics } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { OtlpMetricsConfig } from "@/lib/config";
import { registerMetricsFlush } from "./metrics";

async function exporterFor(config: Extract<OtlpMetricsConfig, { enabled: true }>): Promise<PushMetricExporter> {
  if (config.protocol === "http/json") {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-http");
    return new OTLPMetricExporter({ url: config.metricsUrl });
  }
  const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-proto");
  return new OTLPMetricExporter({ url: config.metricsUrl });
}

let started = false;

/** Starts pushing metrics (once per process). */
export async function startOtlpMetrics(config: Extract<OtlpMetricsConfig, { enabled: true }>): Promise<void> {
  if (started) return;
  started = true;
  const exporter = await exporterFor(config);
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName, "service.instance.id": randomUUID() }),
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: config.exportIntervalMs, exportTimeoutMillis: Math.min(30_000, config.exportIntervalMs) })],
  });
  metrics.setGlobalMeterProvider(provider);
  registerMetricsFlush(() => provider.forceFlush());
}
