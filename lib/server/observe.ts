// The per-request observation where a request enters node:http (server.ts's listener under `npm start`,
// ./request-channel.ts under a bare `next start`): one log line and one metric sample per request, whoever answers it
// (the node:http front, Next, or the listener's own refusals), and the request id sent back as X-Request-Id. Then this
// is the only observation: the route files' wrapper and proxy.ts make the same line only where neither runs
// (lib/http/observe.ts).
//   observeRequest(req, res, routeOfTarget(req.url).route);   // before the front or Next handles it
// The route template comes from the route table (lib/routes, passed in: this layer does not import it).
import type { IncomingMessage, ServerResponse } from "node:http";
import { callerKey } from "@/lib/http/client-ip";
import { noteRequestActivity } from "@/lib/background/load";
import { requestIdFrom, requestLog } from "@/lib/observability/log";
import { recordRequest } from "@/lib/observability/metrics";
import { TRACE_RESPONSE_HEADER, traceIdOfResponse } from "@/lib/tracing";
import { headerReader } from "./headers";

/** What observeRequest keeps of a request until its answer is sent. */
interface Observation {
  /** performance.now() when observed: a double, where process.hrtime.bigint() allocates two BigInts per request. */
  started: number;
  requestId: string;
  template: string;
}

/**
 * The observation rides on the response under a symbol, read by one shared "close" listener: no closure, no
 * once-wrapper and no WeakMap entry per request.
 */
const OBSERVATION = Symbol("agent-gate.observation");
type ObservedResponse = ServerResponse & { [OBSERVATION]?: Observation };

/**
 * A response's "close": node:http emits it once the answer is sent (after "finish") and also when the client
 * leaves first, so it alone ends every observation.
 */
function finishObservation(this: ObservedResponse): void {
  const observation = this[OBSERVATION];
  if (observation === undefined) return;
  this[OBSERVATION] = undefined;
  const req = this.req;
  const endedAt = performance.now();
  noteRequestActivity(endedAt);
  const durationMs = endedAt - observation.started;
  const route = observation.template;
  const method = req.method ?? "GET";
  // A client that left before the answer: 499, as proxies log it.
  const status = this.writableFinished ? this.statusCode : 499;
  let ip = "unknown";
  try {
    ip = callerKey(headerReader(req));
  } catch {
    // A configuration problem must not lose the line.
  }
  requestLog({
    method,
    route,
    status,
    durationMs,
    requestId: observation.requestId,
    clientIp: ip,
    traceId: (req as TracedRequest)[TRACE_ID] ?? traceIdOfResponse(this.getHeader(TRACE_RESPONSE_HEADER)),
  });
  recordRequest(method, route, status, durationMs / 1000);
}

/** The trace id of a request's span (lib/tracing), noted by whoever made the span, for its log line. */
const TRACE_ID = Symbol("agent-gate.trace-id");
type TracedRequest = IncomingMessage & { [TRACE_ID]?: string };

/** Notes the trace id of the request's span (only called when traces are on). */
export function noteTraceId(req: IncomingMessage, traceId: string | undefined): void {
  (req as TracedRequest)[TRACE_ID] = traceId;
}

/**
 * Observes one request under its route template: sets X-Request-Id on the response now, and when the response has been sent (or
 * the client left) writes the request's log line and metric sample. Returns the request id.
 */
export function observeRequest(req: IncomingMessage, res: ServerResponse, template: string, options: { setHeader?: boolean } = {}): string {
  const started = performance.now();
  // Background work yields while requests come (./load, ./pacing).
  noteRequestActivity(started);
  const header = req.headers["x-request-id"];
  const requestId = requestIdFrom(Array.isArray(header) ? header[0] : header);
  // The server entry writes the header itself (the front puts it in its one header list: a setHeader before
  // writeHead sends node:http down its slower merging path on every request, bench/README.md).
  if (options.setHeader !== false && !res.headersSent) res.setHeader("X-Request-Id", requestId);
  (res as ObservedResponse)[OBSERVATION] = { started, requestId, template };
  res.on("close", finishObservation);
  return requestId;
}
