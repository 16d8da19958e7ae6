// OpenTelemetry traces (issue 43 item 3): each request is one SERVER span named by its route template, store
// statements, MCP tool calls and A2A skills are its children, and a caller's W3C `traceparent` (the HTTP header,
// or `params._meta.traceparent` on MCP 2026-07-28) continues the caller's trace.
//
// Off unless an OTLP endpoint is configured (getConfig().tracing, lib/config/tracing.ts): then every function here costs one boolean
// check and calls straight through; nothing of the SDK is loaded (./sdk.ts is imported by instrumentation.ts only
// when tracing is on). Only @opentelemetry/api is imported here: its global registry is what lets the copies of this
// module in Next's bundle and in dist/server.mjs share the one tracer provider ./sdk.ts registers. The caller's trace
// context is read by @opentelemetry/core's W3CTraceContextPropagator, which ./sdk.ts hands this module through
// lib/registry (not as the API's global propagator: Next would then propagate its own spans' context into the
// requests it rewrites, and a markdown twin would get a second request span).
//
// Attributes are fixed names with values we choose (method, route template, status, class of work, operation and
// tool names): never a token, code, e-mail, password, query string or body.
import {
  context,
  createContextKey,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
} from "@opentelemetry/api";
import { getConfig } from "@/lib/config";
import { processSingleton } from "@/lib/registry";

/** The instrumentation scope of every span of ours (./sdk.ts exports only this scope's spans). */
export const TRACER_NAME = "agent-gate";

let enabled: boolean | undefined;

/** Whether traces are on in this process (read once). */
export function tracingOn(): boolean {
  enabled ??= getConfig().tracing.enabled;
  return enabled;
}

let cachedTracer: Tracer | undefined;
function tracer(): Tracer {
  cachedTracer ??= trace.getTracer(TRACER_NAME);
  return cachedTracer;
}

// ---------------------------------------------------------------- W3C trace context

/** The headers the request span reads. */
interface TraceHeaders {
  get(name: string): string | null;
}

/** The W3C Trace Context propagator ./sdk.ts starts with, one per process (every copy of this module reads it). */
const propagation = processSingleton<{ propagator?: TextMapPropagator }>("tracing.propagator", () => ({}));

/** Called by ./sdk.ts as traces start: the propagator that reads a caller's `traceparent` and `tracestate`. */
export function installPropagator(propagator: TextMapPropagator): void {
  propagation.propagator = propagator;
}

/** The caller's trace context from `carrier` over `base` (`base` itself when there is none, or it is malformed). */
function extractCaller<Carrier>(base: Context, carrier: Carrier, getter: TextMapGetter<Carrier>): Context {
  return propagation.propagator?.extract(base, carrier, getter) ?? base;
}

/** Reads `traceparent` and `tracestate` from a request's headers. */
const HEADERS: TextMapGetter<TraceHeaders> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  // The W3C propagator asks for its two fields by name only.
  keys: () => [],
};

/** The same for trace context carried in a message's fields (MCP `params._meta`): strings only, anything else is absent. */
const FIELDS: TextMapGetter<Readonly<Record<string, unknown>>> = {
  get: (fields, key) => {
    const value = fields[key];
    return typeof value === "string" ? value : undefined;
  },
  keys: (fields) => Object.keys(fields),
};

// ---------------------------------------------------------------- request spans

/** Where the request span of the request in scope sits (a child span of another trace links to it). */
const REQUEST_SPAN = createContextKey("agent-gate.request-span");

/**
 * The request's target, handed to ./sdk.ts's span processor in the request span's parent context: it names the span
 * by the route table's template, the one its log line and metrics name (lib/routes sits above this layer, and Next's
 * route bundles hold their own copy of this module, which nothing at start can reach; the one SDK is reached through
 * the API's global registry, and context keys are global symbols). Only the span's parent context holds it, in this
 * process: the target itself never becomes an attribute.
 */
export const REQUEST_TARGET = createContextKey("agent-gate.request-target");

/** The request's route (its template in lib/routes, or "(unmatched)") and class of work, for the request span. */
export type RouteOfTarget = (target: string) => { route: string; workClass: string | null };

/** A request's SERVER span and the context its work runs in (the span, and REQUEST_SPAN naming it). */
function startRequestSpan(method: string, target: string, headers: TraceHeaders): { span: Span; scope: Context } {
  // The caller's `traceparent` (and `tracestate`) is the parent, or nothing: a missing or malformed one starts a new
  // trace, it never fails the request; whatever span a framework has made active is not our caller.
  const parent = extractCaller(ROOT_CONTEXT, headers, HEADERS).setValue(REQUEST_TARGET, target);
  // Named and given its route and class of work by ./sdk.ts as it starts (REQUEST_TARGET).
  const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { "http.request.method": method } }, parent);
  return { span, scope: trace.setSpan(parent, span).setValue(REQUEST_SPAN, span.spanContext()).deleteValue(REQUEST_TARGET) };
}

function endRequestSpan(span: Span, status: number): void {
  span.setAttribute("http.response.status_code", status);
  if (status >= 500) markFailed(span, String(status));
}

/**
 * Runs one request's handler inside its SERVER span (the node:http front under npm start; lib/http/route.ts apiRoute
 * where no request span is in scope: a host that hands Next its requests other than through node:http). The parent
 * is the caller's `traceparent` or nothing: whatever span a framework has made active is not our caller. Callers
 * check tracingOn() first, so the off path makes neither this call nor its closure.
 */
export async function traceHttpRequest<T extends { status: number }>(request: { method: string; target: string; headers: TraceHeaders }, run: () => Promise<T>): Promise<T> {
  const { span, scope } = startRequestSpan(request.method, request.target, request.headers);
  return runInSpan(span, scope, async () => {
    const reply = await run();
    endRequestSpan(span, reply.status);
    return reply;
  });
}

/** What traceNodeRequest needs of node:http's request and response. */
interface NodeExchange {
  request: { method?: string; url?: string; headers: Readonly<Record<string, string | string[] | undefined>> };
  response: { statusCode: number; readonly writableFinished: boolean; setHeader(name: string, value: string): unknown; once(event: "close", listener: () => void): unknown };
}

/**
 * Runs `run` (Next's request handler, which answers through `response` itself) inside the request's SERVER span
 * (openNodeRequestSpan): server.ts hands every request the front does not answer to Next this way, so pages get their
 * span too, and an API route's own wrapper sees a request span in scope and makes none (inRequestSpan).
 */
export function traceNodeRequest<T>(exchange: NodeExchange, run: () => T): T {
  return context.with(openNodeRequestSpan(exchange), run);
}

/**
 * Makes the request's SERVER span the active context of whatever node:http runs next for it: called from
 * node:diagnostics_channel's `http.server.request.start` (lib/server/request-channel.ts, a bare `next start`), which
 * node:http publishes just before it emits the request to the server's listener. The API's `context.attach` is the
 * documented bridge where no `context.with` can wrap the call. Its token is not disposed: the context lasts to the end
 * of the socket callback that parsed the request (and what it starts), and the next request's publish attaches its own.
 */
export function attachNodeRequestSpan(exchange: NodeExchange): void {
  context.attach(openNodeRequestSpan(exchange));
}

/**
 * Starts the request's SERVER span, ended when the response closes with its status, and returns the context its work
 * runs in. The answer carries `traceresponse`, which the request's log line reads its trace id from.
 */
function openNodeRequestSpan({ request, response }: NodeExchange): Context {
  const method = request.method ?? "GET";
  const { span, scope } = startRequestSpan(method, request.url ?? "/", {
    get: (name) => {
      const value = request.headers[name];
      return typeof value === "string" ? value : null;
    },
  });
  response.setHeader(TRACE_RESPONSE_HEADER, traceResponseOf(span.spanContext()));
  response.once("close", () => {
    if (response.writableFinished) endRequestSpan(span, response.statusCode);
    // The connection closed before the answer was sent (the client left, or the handler failed).
    else markFailed(span, "aborted");
    span.end();
  });
  return scope;
}

/** Whether the request in scope already runs in its SERVER span (made before Next ran: traceNodeRequest, attachNodeRequestSpan). */
export function inRequestSpan(): boolean {
  return context.active().getValue(REQUEST_SPAN) !== undefined;
}

/** Runs `run` in `scope`, the span ending when it settles (a throw marks the span failed with the error's class). */
async function runInSpan<T>(span: Span, scope: Context, run: () => Promise<T>): Promise<T> {
  try {
    return await context.with(scope, run);
  } catch (error) {
    markFailed(span, errorType(error));
    throw error;
  } finally {
    span.end();
  }
}

function markFailed(span: Span, type: string): void {
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** An error's class name only: a message may carry what the caller sent. */
function errorType(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/**
 * The answer's `traceresponse` header (W3C Trace Context Level 2): the request span's trace and span ids, so a caller
 * can name the trace of an answer, and whoever writes the request's log line finds its trace id on the response
 * (Next answers through a web Response the listener never sees; a bare `next start` logs after the span ended).
 */
export const TRACE_RESPONSE_HEADER = "traceresponse";

/** The `traceresponse` value of the span in scope, or undefined (traces off, or no span). */
export function activeTraceResponse(): string | undefined {
  if (!tracingOn()) return undefined;
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  return traceResponseOf(spanContext);
}

function traceResponseOf(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${spanContext.traceFlags & TraceFlags.SAMPLED ? "01" : "00"}`;
}

/** The trace id of a `traceresponse` value (a header as node:http or a web Headers gives it), or undefined. */
export function traceIdOfResponse(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(value);
  return match ? match[1] : undefined;
}

/** The trace id of the span in scope, when traces are on and one is (for the request's log line). */
export function activeTraceId(): string | undefined {
  if (!tracingOn()) return undefined;
  const spanContext = trace.getSpanContext(context.active());
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

// ---------------------------------------------------------------- child spans

/**
 * Runs `run` inside an INTERNAL child span of the span in scope. Work outside any request (the janitor, webhook
 * delivery) gets no span of its own: with no span in scope this calls straight through.
 */
export async function traceChild<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return run();
  const active = context.active();
  const parent = trace.getSpanContext(active);
  if (parent === undefined || !isSpanContextValid(parent)) return run();
  // Under a caller's MCP trace (withCallerTrace), the request's own span is in another trace: linked, not lost.
  const requestSpan = active.getValue(REQUEST_SPAN) as SpanContext | undefined;
  const links: Link[] | undefined = requestSpan && requestSpan.traceId !== parent.traceId ? [{ context: requestSpan }] : undefined;
  const span: Span = tracer().startSpan(name, { kind: SpanKind.INTERNAL, attributes, links }, active);
  return runInSpan(span, trace.setSpan(active, span), run);
}

/** An MCP tool call (OpenTelemetry's MCP conventions) as a child span; callers check tracingOn() first. */
export function traceToolCall<T>(toolName: string, run: () => Promise<T>): Promise<T> {
  return traceChild(`tools/call ${toolName}`, { "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": toolName }, run);
}

/** An A2A skill invocation as a child span; callers check tracingOn() first. */
export function traceSkill<T>(skill: string, run: () => Promise<T>): Promise<T> {
  return traceChild(`a2a skill ${skill}`, { "agent_gate.a2a.skill": skill, "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": skill }, run);
}

/** `fn`, run in the trace context in scope now wherever it is called from (work a queue runs for its caller). */
export function bindToActiveTrace<F extends (...args: never[]) => unknown>(fn: F): F {
  if (!tracingOn()) return fn;
  return context.bind(context.active(), fn);
}

/**
 * Runs `run` with the caller's trace context of a message (MCP 2026-07-28 `params._meta.traceparent` and
 * `tracestate`) as its parent: the spans made inside (the tool call and its store statements) join the caller's
 * trace, linked to this request's span. A missing or malformed one changes nothing.
 */
export function withCallerTrace<T>(traceparent: unknown, tracestate: unknown, run: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return run();
  const active: Context = context.active();
  const caller = extractCaller(active, { traceparent, tracestate }, FIELDS);
  return caller === active ? run() : context.with(caller, run);
}

/** Sends the spans still waiting in the export batch (server.ts, before a shutdown exits). */
export async function flushTraces(): Promise<void> {
  if (!tracingOn()) return;
  // The registered provider sits behind the API's proxy; ./sdk.ts's provider can flush.
  const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
  const delegate = (typeof provider.getDelegate === "function" ? provider.getDelegate() : provider) as { forceFlush?: () => Promise<void> };
  await delegate.forceFlush?.().catch(() => undefined);
}
