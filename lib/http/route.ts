// Wraps every route handler: whatever happens, an API path answers JSON (never a stack trace or HTML);
// an unreachable database becomes 503 temporarily_unavailable with Retry-After.
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { errorLog } from "@/lib/observability/log";
import { recordHandlerFailure } from "@/lib/observability/metrics";
import { activeTraceResponse, inRequestSpan, TRACE_RESPONSE_HEADER, traceHttpRequest, tracingOn } from "@/lib/tracing";
import { fromWebRequest, targetOf, toWebResponse, type ApiReply, type ApiRequest } from "./api";
import { errorReply, methodNotAllowedReply, temporarilyUnavailableReply } from "./errors";

export type RouteContext<P = Record<string, string | string[]>> = { params: Promise<P> };
type Handler<P> = (request: Request, context: RouteContext<P>) => Promise<Response> | Response;

export function route<P = Record<string, string | string[]>>(handler: Handler<P>): Handler<P> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return errorToResponse(error);
    }
  };
}

export function errorToReply(error: unknown): ApiReply {
  recordHandlerFailure(error);
  if (isDatabaseUnavailable(error)) return temporarilyUnavailableReply();
  // One JSON line with the stack (lib/observability/log.ts): request bodies (and so secrets) are never logged.
  errorLog(error, "request handler");
  return errorReply("server_error", "The service failed to handle this request.");
}

export function errorToResponse(error: unknown): Response {
  return toWebResponse(errorToReply(error));
}

/** An API handler: plain data in, plain data out (lib/http/api.ts); the node:http front serves the same ones. */
export type ApiHandler<P = Record<string, never>> = (request: ApiRequest, params: P) => Promise<ApiReply> | ApiReply;

/**
 * A route handler serving an ApiHandler (the one handler shape): a failure becomes the same JSON answer as in
 * the front; a HEAD request gets the GET answer's status and headers without its body. `requestedPath`: the path
 * the request's span goes by (lib/routes/handlers.ts names a rewritten markdown twin by its page; default: the URL's).
 */
export function apiRoute<P = Record<string, never>>(
  handler: ApiHandler<P>,
  requestedPath: (request: Request) => string = (request) => targetOf(request.url),
): (request: Request, context: RouteContext<P>) => Promise<Response> {
  const answer = async (apiRequest: ApiRequest, context: RouteContext<P>): Promise<Response> => {
    try {
      const reply = await handler(apiRequest, (await context?.params) as P);
      return toWebResponse(apiRequest.method === "HEAD" ? { ...reply, body: null } : reply);
    } catch (error) {
      return toWebResponse(errorToReply(error));
    }
  };
  // Traces on: the request's span (lib/tracing) around the whole answer, unless server.ts already runs the request in
  // its span (traceNodeRequest); off, one boolean and nothing else.
  return (request, context) => {
    const apiRequest = fromWebRequest(request);
    if (!tracingOn() || inRequestSpan()) return answer(apiRequest, context);
    const traced = { method: apiRequest.method, target: requestedPath(request), headers: apiRequest.headers };
    return traceHttpRequest(traced, async () => withTraceResponse(await answer(apiRequest, context)));
  };
}

/** The reply with its request span's `traceresponse` header (lib/tracing), made inside the span; traces off: as it is. */
export function withTraceResponse<R extends Response | ApiReply>(reply: R): R {
  const value = activeTraceResponse();
  if (value === undefined) return reply;
  if (reply instanceof Response) {
    reply.headers.set(TRACE_RESPONSE_HEADER, value);
    return reply;
  }
  return { ...reply, headers: { ...reply.headers, [TRACE_RESPONSE_HEADER]: value } };
}

/** A handler for methods a path does not support: JSON 405 with Allow (CONTRACT.md §2). */
export function notAllowed(allow: readonly string[]): () => Response {
  return () => toWebResponse(methodNotAllowedReply(allow));
}

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * JSON 405 handlers for every method a route does not serve, so none falls to Next's empty default:
 * `export const { PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);`
 */
export function refuseOtherMethods(allow: readonly HttpMethod[]): Record<HttpMethod | "OPTIONS", () => Response> {
  const refuse = notAllowed(allow);
  // OPTIONS too, for routes that offer no CORS preflight (Next would otherwise answer 204 itself).
  return Object.fromEntries([...HTTP_METHODS, "OPTIONS"].map((method) => [method, refuse])) as Record<HttpMethod | "OPTIONS", () => Response>;
}
