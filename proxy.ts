// Markdown twins of the human pages (CONTRACT.md §9, STANDARDS.md §13): `<page>.md`, or the page path with
// `Accept: text/markdown`, is rewritten to the internal route app/page-markdown, which renders the page as
// markdown. HTML answers of the same pages carry a `Link` to the twin. (Next's page renderer replaces any
// Vary set here with its own; HTML pages are `no-store`, so no shared cache can hand them to a markdown reader,
// and every markdown answer carries `Vary: Accept`.)
// Every page also gets its Content-Security-Policy here: a fresh nonce per request, set on the request (Next
// reads it there and puts the nonce on its own scripts) and on the response (Next.js's documented pattern;
// lib/http/security-headers.ts), with Strict-Transport-Security when BASE_URL is https.
// The matcher leaves out API routes, tool servers, discovery and Next's files, which never render a page.
// Every request that carries a body also passes here (the matcher's `has` entries), so that under a bare `next start`
// and on Vercel a body over its route's limit (lib/routes) is refused with 413 as under `npm start`: at its
// Content-Length before it is read, or as soon as a chunked body passes the limit (Next buffers at most
// proxyClientMaxBodySize of a body for the route, next.config.ts). Under `npm start` server.ts's body gate has
// already read every body within its route's limit before Next sees the request (lib/server/body-gate.ts): the body
// is neither read nor checked again here.
// Each request's JSON log line, X-Request-Id and metric sample are made where it enters node:http: by server.ts's
// listener under `npm start`, by lib/server/request-channel.ts under a bare `next start`, with the status finally sent.
// Only on a host where neither runs do the requests this proxy refuses and the pages it passes on get theirs here (no
// route wrapper runs for them: API routes and the markdown twins get theirs from lib/routes/handlers.ts;
// lib/http/observe.ts).
import { NextResponse, type NextRequest } from "next/server";
import { bodyTooLargeReply } from "@/lib/http/errors";
import { toWebResponse } from "@/lib/http/api";
import { resolveRoute, UNMATCHED_ROUTE } from "@/lib/routes";
import { observedByProxy } from "@/lib/http/observe";
import { observedAtListener, startedByServerEntry } from "@/lib/http/server-entry";
import { absoluteUrl, getConfig } from "@/lib/config";
import { pageContentSecurityPolicy, transportSecurityHeaders } from "@/lib/http/security-headers";
import { apiCatalogLinkHeader } from "@/lib/discovery/api-catalog";
import { isMarkdownPagePath, MARKDOWN_TWIN_HEADER, markdownTwinPath, pagePathOfTwin, prefersMarkdown } from "@/lib/docs/twins";

/** Internal prefix of the markdown route (it answers only requests marked by this proxy). */
const INTERNAL_PREFIX = "/page-markdown";

function rewriteToMarkdown(request: NextRequest, pagePath: string): NextResponse {
  const target = request.nextUrl.clone();
  target.pathname = pagePath === "/" ? INTERNAL_PREFIX : `${INTERNAL_PREFIX}${pagePath}`;
  target.search = "";
  const headers = new Headers(request.headers);
  headers.set(MARKDOWN_TWIN_HEADER, "1");
  return NextResponse.rewrite(target, { request: { headers } });
}

/** Lets the request through to its page with a fresh nonce in the page policy of request and response. */
function nextWithPagePolicy(request: NextRequest): NextResponse {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = pageContentSecurityPolicy(nonce);
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  for (const [name, value] of transportSecurityHeaders(getConfig().baseUrl)) response.headers.set(name, value);
  return response;
}

/** Whether the request's body passes its route's limit: declared by Content-Length, else counted as it arrives. */
async function bodyOverLimit(request: NextRequest, limit: number): Promise<boolean> {
  const declared = request.headers.get("content-length");
  if (declared !== null) return Number(declared) > limit;
  if (request.body === null) return false;
  const reader = request.body.getReader();
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => undefined);
      return true;
    }
  }
}

/** The paths the page matcher (the matcher's first entry) leaves out: the proxy's page work is not for them. */
let notAPage: RegExp | undefined;
function isPagePath(pathname: string): boolean {
  if (notAPage === undefined) {
    const pages = config.matcher[0] as string;
    notAPage = new RegExp(`^/(?:${pages.slice("/((?!".length, pages.lastIndexOf(").*)"))})`);
  }
  return !notAPage.test(pathname);
}

export async function proxy(request: NextRequest): Promise<Response> {
  const started = performance.now();
  const { pathname } = request.nextUrl;
  if (request.headers.has("content-length") || request.headers.has("transfer-encoding")) {
    // Under npm start the body gate in front has bounded it already: one bounded read per request.
    if (!startedByServerEntry()) {
      const route = resolveRoute(pathname);
      if (await bodyOverLimit(request, route.bodyLimit)) {
        return observedByProxy(request, route.route, 413, started, toWebResponse(bodyTooLargeReply(route.refusal, route.bodyLimit)));
      }
    }
    if (!isPagePath(pathname)) return NextResponse.next();
  }
  const { response, twin } = pageProxy(request);
  // Observed where it entered node:http; a markdown twin is observed by its route handler.
  if (observedAtListener() || twin) return response;
  // The status the page will have is not known here (Next offers no hook after a page's render): a path no entry
  // names is Next's 404 page; a page's own notFound() or redirect() is seen only where node:http observes (docs/observability.md).
  const { route } = resolveRoute(pathname);
  return observedByProxy(request, route, route === UNMATCHED_ROUTE ? 404 : 200, started, response);
}

/** The page request passed on (its policy headers set), and whether it was rewritten to its markdown twin. */
function pageProxy(request: NextRequest): { response: NextResponse; twin: boolean } {
  const { pathname } = request.nextUrl;
  const readMethod = request.method === "GET" || request.method === "HEAD";
  const twinOf = pagePathOfTwin(pathname);
  if (twinOf !== null && isMarkdownPagePath(twinOf))
    return readMethod ? { response: rewriteToMarkdown(request, twinOf), twin: true } : { response: nextWithPagePolicy(request), twin: false };
  // Not a page with a twin: /agent/authorize/done, a 404 page, a form's POST handler.
  if (!isMarkdownPagePath(pathname)) return { response: nextWithPagePolicy(request), twin: false };
  if (readMethod && prefersMarkdown(request.headers.get("accept"), "text/html")) return { response: rewriteToMarkdown(request, pathname), twin: true };
  const response = nextWithPagePolicy(request);
  response.headers.set("Vary", "Accept");
  const links = [`<${absoluteUrl(markdownTwinPath(pathname))}>; rel="alternate"; type="text/markdown"`];
  // RFC 9727: the home page points agents to the API catalog.
  if (pathname === "/") links.push(apiCatalogLinkHeader());
  response.headers.set("Link", links.join(", "));
  return { response, twin: false };
}

export const config = {
  matcher: [
    // Everything but the paths that never render a page: API routes, tool servers, discovery documents, the
    // forms' POST handlers, the operator endpoints, the internal markdown route and Next's own files (the front
    // answers the hottest of these before Next); they keep the static policy of next.config.ts.
    "/((?!api(?:/|$)|mcp(?:/|$)|a2a$|ask$|healthz$|readyz$|metrics$|oauth2/|\\.well-known/|_next/|page-markdown(?:/|$)|agent/identity|agent/authorize/decision$|account/revoke$|account/settings$|openapi\\.json$|sitemap\\.xml$|robots\\.txt$|auth\\.md$|favicon\\.ico$).*)",
    // Every request with a body, whatever its path, for the body limits (next-auth's /api/auth/* included).
    { source: "/((?!_next/).*)", has: [{ type: "header", key: "content-length" }] },
    { source: "/((?!_next/).*)", has: [{ type: "header", key: "transfer-encoding" }] },
  ],
};
