// What route files mount (DEVELOPING.md "HTTP: one handler shape"): lib/http/route.ts's wrappers, observed. Without
// a server.ts listener in front (a bare `next start`, Vercel), each request answered here gets its JSON log line,
// X-Request-Id and metric sample under its route template from the table (lib/http/observe.ts); under `npm start` the
// listener has made them already, and these are the plain wrappers plus one flag check.
//   export const GET = apiRoute(askReply);
//   export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
//   export const OPTIONS = preflight(["POST"], ["Content-Type", "Authorization"]);
import { MARKDOWN_TWIN_HEADER } from "@/lib/docs/twins";
import { pathOf, targetOf } from "@/lib/http/api";
import { corsPreflight } from "@/lib/http/cors";
import { observedAnswer } from "@/lib/http/observe";
import { observedAtListener } from "@/lib/http/server-entry";
import * as plain from "@/lib/http/route";
import type { ApiHandler, HttpMethod, RouteContext } from "@/lib/http/route";
import { resolveRoute } from "./index";

/** proxy.ts's internal markdown route (app/page-markdown), which answers the pages' markdown twins. */
const MARKDOWN_ROUTE = "/page-markdown";

/**
 * The path the request was sent to: a markdown twin that proxy.ts rewrote goes by its page, as server.ts's listener
 * and the request channel name the path the client sent. Its route names the request's log line and its span.
 */
function requestedPath(request: Request): string {
  const path = pathOf(targetOf(request.url));
  if ((path === MARKDOWN_ROUTE || path.startsWith(`${MARKDOWN_ROUTE}/`)) && request.headers.get(MARKDOWN_TWIN_HEADER) === "1") {
    return path.slice(MARKDOWN_ROUTE.length) || "/";
  }
  return path;
}

/** The template of the path the request was sent to (lib/routes resolveRoute). */
const templateOfRequest = (request: Request): string => resolveRoute(requestedPath(request)).route;

type Handler<P> = (request: Request, context: RouteContext<P>) => Promise<Response> | Response;

/** Observes every request `handler` answers (under `npm start`: calls it, nothing more; the listener observes). */
function observed<P>(handler: Handler<P>): (request: Request, context: RouteContext<P>) => Promise<Response> | Response {
  return (request, context) => (observedAtListener() ? handler(request, context) : observedAnswer(request, templateOfRequest, () => handler(request, context)));
}

/** An ApiHandler as a route handler (lib/http/route.ts apiRoute), observed. */
export function apiRoute<P = Record<string, never>>(handler: ApiHandler<P>): (request: Request, context: RouteContext<P>) => Promise<Response> | Response {
  return observed(plain.apiRoute(handler, requestedPath));
}

/** A web handler whose failures become JSON (lib/http/route.ts route: next-auth's own handler), observed. */
export function route<P = Record<string, string | string[]>>(handler: Handler<P>): (request: Request, context: RouteContext<P>) => Promise<Response> | Response {
  return observed(plain.route(handler));
}

/** JSON 405 handlers for every method a route does not serve (lib/http/route.ts refuseOtherMethods), observed. */
export function refuseOtherMethods(allow: readonly HttpMethod[]): Record<HttpMethod | "OPTIONS", (request: Request) => Promise<Response>> {
  const refuse = plain.notAllowed(allow);
  const handler = (request: Request): Promise<Response> => observedAnswer(request, templateOfRequest, refuse);
  return Object.fromEntries([...plain.HTTP_METHODS, "OPTIONS"].map((method) => [method, handler])) as Record<HttpMethod | "OPTIONS", (request: Request) => Promise<Response>>;
}

/** The CORS preflight of an anonymous public-read endpoint (lib/http/cors.ts), observed. */
export function preflight(methods: readonly string[], allowHeaders: readonly string[]): (request: Request) => Promise<Response> {
  return (request) => observedAnswer(request, templateOfRequest, () => corsPreflight(methods, allowHeaders));
}
