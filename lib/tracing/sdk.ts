// The OpenTelemetry SDK, loaded only when an OTLP endpoint is configured (instrumentation.ts imports this module
// dynamically, once per process, in every start mode). It registers, through @opentelemetry/api's global registry:
// - a context manager on AsyncLocalStorage, so a span in scope follows the request's promises to its store calls;
// - a tracer provider that exports our spans (scope "agent-gate", ./index.ts) over OTLP/HTTP in batches. Every
//   other scope gets a no-op tracer: Next's own spans would otherwise leave too, and its request span carries the
//   raw target with its query string (`http.target`), which may hold a code or a token.
import { ProxyTracerProvider, context, trace, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider as SdkTracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace";
import type { TracingConfig } from "@/lib/config/tracing";
import { TRACER_NAME } from "./index";

const NO_TRACER: Tracer = new ProxyTracerProvider().getTracer("disabled");

/** Hands out the SDK's tracer for our scope only. */
class OwnSpansOnly implements TracerProvider {
  constructor(private readonly sdk: SdkTracerProvider) {}
  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    return name === TRACER_NAME ? this.sdk.getTracer(name, version, options) : NO_TRACER;
  }
  forceFlush(): Promise<void> {
    return this.sdk.forceFlush();
  }
}

async function exporterFor(config: Extract<TracingConfig, { enabled: true }>): Promise<SpanExporter> {
  if (config.protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter({ url: config.tracesUrl });
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter({ url: config.tracesUrl });
}

let started = false;

/** Starts exporting (once per process). */
export async function startTracing(config: Extract<TracingConfig, { enabled: true }>): Promise<void> {
  if (started) return;
  started = true;
  const exporter = await exporterFor(config);
  const sdk = new SdkTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new OwnSpansOnly(sdk));
}
