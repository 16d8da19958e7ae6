// The per-request observation where no node:http listener observes (a host that hands Next its requests other than
// through a node:http server): the route files' wrapper (lib/routes/handlers.ts) and proxy.ts make the same JSON line,
// X-Request-Id and metric sample as lib/server/observe.ts does where a request enters node:http (server.ts's listener
// under `npm start`, lib/server/request-channel.ts under a bare `next start`). There both return at once: the request
// was observed already (with its final status, and the refusals written before any handler), so each request gets
// exactly one line and one sample in every start mode. The route template is passed in (lib/routes).
import { callerKey } from "@/lib/http/client-ip";
import { observedAtListener } from "@/lib/http/server-entry";
import { noteRequestActivity } from "@/lib/background/load";
import { requestIdFrom, requestLog } from "@/lib/observability/log";
import { recordRequest } from "@/lib/observability/metrics";
import { TRACE_RESPONSE_HEADER, traceIdOfResponse } from "@/lib/tracing";

const REQUEST_ID_HEADER = "X-Request-Id";

/** A response with the request id set (a Response whose headers are immutable, such as Response.redirect's, is copied). */
function withRequestId(response: Response, requestId: string): Response {
  try {
    response.headers.set(REQUEST_ID_HEADER, requestId);
    return response;
  } catch {
    const copy = new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
    copy.headers.set(REQUEST_ID_HEADER, requestId);
    return copy;
  }
}

/** Writes the request's line and sample (the same fields as lib/server/observe.ts's). */
function finish(request: Request, template: string, status: number, started: number, requestId: string, traceId?: string): void {
  const endedAt = performance.now();
  noteRequestActivity(endedAt);
  let ip = "unknown";
  try {
    ip = callerKey(request.headers);
  } catch {
    // A configuration problem must not lose the line.
  }
  const durationMs = endedAt - started;
  requestLog({ method: request.method, route: template, status, durationMs, requestId, clientIp: ip, traceId });
  recordRequest(request.method, template, status, durationMs / 1000);
}

/**
 * Answers a request through `answer` and, where no node:http listener observed it, observes it: its X-Request-Id (the
 * client's when well-formed, else a new one) on the response, one log line and one metric sample with the status
 * answered. Where one did (observedAtListener): `answer()` and nothing else.
 */
export async function observedAnswer(request: Request, templateOf: (request: Request) => string, answer: () => Promise<Response> | Response): Promise<Response> {
  if (observedAtListener()) return answer();
  const started = performance.now();
  noteRequestActivity(started);
  const requestId = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
  const response = await answer();
  // The request span has ended; its trace id is on the answer (lib/http/route.ts withTraceResponse).
  finish(request, templateOf(request), response.status, started, requestId, traceIdOfResponse(response.headers.get(TRACE_RESPONSE_HEADER)));
  return withRequestId(response, requestId);
}

/**
 * proxy.ts's observation of a request it answers itself or passes on to a page (no wrapper runs for a page): the
 * request id on `response` (Next copies a passed-on response's headers onto the page's answer) and the line with
 * `status`, the status the proxy knows, timed from `started` (performance.now() when the proxy began). Where a
 * node:http listener observed the request: `response` as it is.
 */
export function observedByProxy(request: Request, template: string, status: number, started: number, response: Response): Response {
  if (observedAtListener()) return response;
  noteRequestActivity(started);
  const requestId = requestIdFrom(request.headers.get(REQUEST_ID_HEADER));
  finish(request, template, status, started, requestId);
  return withRequestId(response, requestId);
}
