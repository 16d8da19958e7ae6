// The OpenTelemetry SDK, loaded only when an OTLP endpoint is configured (instrumentation.ts imports this module
// dynamically, once per process, in every start mode). It registers, through @opentelemetry/api's global registry:
// - a context manager on AsyncLocalStorage, so a span in scope follows the request's promises to its store calls;
// - a tracer provider that exports our spans (scope "agent-gate", ./index.ts) over OTLP/HTTP in batches. Every
//   other scope gets a no-op tracer: Next's own spans would otherwise leave too, and its request span carries the
//   raw target with its query string (`http.target`), which may hold a code or a token.
// It hands ./index.ts W3C Trace Context's propagator (@opentelemetry/core), which reads a caller's `traceparent` and
// `tracestate`: through lib/registry, not as the API's global propagator, which Next would use for its own spans.
import { ProxyTracerProvider, SpanKind, context, trace, type Context, type Tracer, type TracerProvider } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider as SdkTracerProvider, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from "@opentelemetry/sdk-trace";
import type { TracingConfig } from "@/lib/config";
import { REQUEST_TARGET, TRACER_NAME, installPropagator, type RouteOfTarget } from "./index";

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
 * table (the request's target rides in its parent context, ./index.ts REQUEST_TARGET, and goes no further): the route
 * its log line and metrics name. Next writes its own route into the `http.route` of the span it runs under (ours:
 * "/_not-found" for a path no route names); the table's is set again as the span ends (the SDK's onEnding).
 */
class RouteNamer implements SpanProcessor {
  private readonly routes = new WeakMap<Span, string>();
  constructor(private readonly routeOf: RouteOfTarget) {}
  onStart(span: Span, parentContext: Context): void {
    if (span.kind !== SpanKind.SERVER) return;
    const target = parentContext.getValue(REQUEST_TARGET);
    if (typeof target !== "string") return;
    const { route, workClass } = this.routeOf(target);
    this.routes.set(span, route);
    span.updateName(`${span.name} ${route}`);
    span.setAttribute("http.route", route);
    span.setAttribute("agent_gate.work_class", workClass ?? "unqueued");
  }
  onEnding(span: Span): void {
    const route = this.routes.get(span);
    if (route !== undefined) span.setAttribute("http.route", route);
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
export async function startTracing(config: Extract<TracingConfig, { enabled: true }>, routeOf: RouteOfTarget): Promise<void> {
  if (started) return;
  started = true;
  const exporter = await exporterFor(config);
  const sdk = new SdkTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    spanProcessors: [new RouteNamer(routeOf), new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.exportDelayMs })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  installPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new OwnSpansOnly(sdk));
}
