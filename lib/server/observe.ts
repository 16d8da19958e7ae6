// The per-request observation for the server entry (server.ts): one log line and one metric sample per
// request, through the node:http front and Next alike, and the request id sent back as X-Request-Id.
//   const requestId = observeRequest(req, res);            // before the front or Next handles it
//   observeRequest(req, res, "/oauth2/token");              // when the caller knows the route template
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { clientIp, PEER_HEADER } from "@/lib/http/client-ip";
import { noteRequestActivity } from "@/lib/operations/load";
import { requestIdFrom, requestLog } from "@/lib/operations/log";
import { recordRequest } from "@/lib/operations/metrics";

/** Paths no route matches share one label, so a scan of random paths cannot grow the series. */
export const UNMATCHED_ROUTE = "(unmatched)";

interface RouteTable {
  exact: Map<string, string>;
  dynamic: { regex: RegExp; page: string }[];
}

let table: RouteTable | undefined;

/** The build's routes (.next/routes-manifest.json): static pages by path, dynamic ones by Next's own regexes. */
function routeTable(): RouteTable {
  // Checked before anything else: this runs on every request (a default parameter built with path.join was a
  // tenth of the observation's cost, evaluated on every call).
  if (table) return table;
  const loaded: RouteTable = { exact: new Map(), dynamic: [] };
  try {
    const distDir = path.join(process.cwd(), ".next");
    const manifest = JSON.parse(fs.readFileSync(path.join(distDir, "routes-manifest.json"), "utf8")) as {
      staticRoutes?: { page: string }[];
      dynamicRoutes?: { page: string; regex: string }[];
    };
    for (const route of manifest.staticRoutes ?? []) loaded.exact.set(route.page, route.page);
    for (const route of manifest.dynamicRoutes ?? []) loaded.dynamic.push({ regex: new RegExp(route.regex), page: route.page });
  } catch {
    // No build (tests of this module without one): every path is unmatched.
  }
  table = loaded;
  return loaded;
}

/** The route template of a request path ("/members/[slug]"), never the raw path or its query. */
export function routeTemplateOf(url: string | undefined): string {
  const raw = url ?? "/";
  // The path ends at the first "?" or "#" (indexOf, not a regular expression: this runs on every request).
  const query = raw.indexOf("?");
  const fragment = raw.indexOf("#");
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  const pathname = (end === -1 ? raw : raw.slice(0, end)) || "/";
  let cut = pathname.length;
  while (cut > 1 && pathname.charCodeAt(cut - 1) === 0x2f) cut -= 1;
  const trimmed = cut === pathname.length ? pathname : pathname.slice(0, cut);
  const routes = routeTable();
  const exact = routes.exact.get(trimmed);
  if (exact) return exact;
  for (const route of routes.dynamic) if (route.regex.test(pathname)) return route.page;
  return UNMATCHED_ROUTE;
}

/** The request's headers for clientIp(); the socket's address stands in when the peer stamp has not run yet. */
function headerReader(req: IncomingMessage): { get(name: string): string | null } {
  return {
    get(name: string) {
      const key = name.toLowerCase();
      const value = req.headers[key];
      if (key === PEER_HEADER && value === undefined) return req.socket.remoteAddress ?? null;
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
  };
}

/** What observeRequest keeps of a request until its answer is sent. */
interface Observation {
  /** performance.now() when observed: a double, where process.hrtime.bigint() allocates two BigInts per request. */
  started: number;
  requestId: string;
  template: string | undefined;
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
  const route = observation.template ?? routeTemplateOf(req.url);
  const method = req.method ?? "GET";
  // A client that left before the answer: 499, as proxies log it.
  const status = this.writableFinished ? this.statusCode : 499;
  let ip = "unknown";
  try {
    ip = clientIp(headerReader(req));
  } catch {
    // A configuration problem must not lose the line.
  }
  requestLog({ method, route, status, durationMs, requestId: observation.requestId, clientIp: ip, traceId: (req as TracedRequest)[TRACE_ID] });
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
 * Observes one request: sets X-Request-Id on the response now, and when the response has been sent (or
 * the client left) writes the request's log line and metric sample. Returns the request id.
 */
export function observeRequest(req: IncomingMessage, res: ServerResponse, template?: string, options: { setHeader?: boolean } = {}): string {
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
