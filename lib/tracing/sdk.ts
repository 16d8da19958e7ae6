// The OpenTelemetry SDK, loaded only when an OTLP endpoint is configured (instrumentation.ts imports this module
// dynamically, once per process, in every start mode). It registers, through @opentelemetry/api's global registry:
// - a context manager on AsyncLocalStorage, so a span in scope follows the request's promises to its store calls;
// - a tracer provider that exports our spans (scope "agent-gate", ./index.ts) over OTLP/HTTP in batches. Every
//   other scope gets a no-op tracer: Next's own spans would otherwise leave too, and its request span carries the
//   raw target with its query string (`http.target`), which may hold a code or a token.
import { ProxyTracerProvider, SpanKind, context, trace, type Context, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider as SdkTracerProvider, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace";
import type { TracingConfig } from "@/lib/config";
import { REQUEST_PATH, TRACER_NAME, type RouteOfPath } from "./index";

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

/**
 * Names each request span as it starts: `POST /oauth2/token`, with `http.route` and its class of work, from the route
 * table (the request's path rides in its parent context, ./index.ts REQUEST_PATH, and goes no further).
 */
class RouteNamer implements SpanProcessor {
  constructor(private readonly routeOf: RouteOfPath) {}
  onStart(span: Span, parentContext: Context): void {
    if (span.kind !== SpanKind.SERVER) return;
    const path = parentContext.getValue(REQUEST_PATH);
    if (typeof path !== "string") return;
    const { route, workClass } = this.routeOf(path);
    span.updateName(`${span.name} ${route}`);
    span.setAttribute("http.route", route);
    span.setAttribute("agent_gate.work_class", workClass ?? "unqueued");
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
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
export async function startTracing(config: Extract<TracingConfig, { enabled: true }>, routeOf: RouteOfPath): Promise<void> {
  if (started) return;
  started = true;
  const exporter = await exporterFor(config);
  const sdk = new SdkTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    spanProcessors: [new RouteNamer(routeOf), new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new OwnSpansOnly(sdk));
}
