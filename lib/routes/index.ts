// The route table (issues 41 and 43): every endpoint of the service, declared once. Each entry gives its path (as
// its folder under app/ spells it, dynamic segments included), the methods it answers, its class of work
// (lib/admission), the largest body it takes (refused with 413 before it is read, in every start mode: server.ts's
// body gate, proxy.ts under a bare `next start` and on Vercel), the shape its refusals take, whether it renders a
// page (proxy.ts's page matcher), and which methods the node:http front answers under `npm start` (their handlers:
// lib/routes/front.ts, typed by this table). Next still needs its literals, a file at each path and proxy.ts's static
// matcher: tests/unit/routes.test.ts ties them to this table, both ways. The limits are the handlers' own constants,
// so a handler and the gate in front of it never disagree. This module loads no handler: proxy.ts and server.ts's
// body gate read it on every request.
import type { WorkClass } from "@/lib/admission";
import type { HttpMethod } from "@/lib/http/route";
import { A2A_BODY_LIMIT } from "@/lib/a2a/limits";
import { DECISION_FORM_LIMIT_BYTES, REVOKE_FORM_LIMIT_BYTES, SETTINGS_FORM_LIMIT_BYTES } from "@/lib/http/form-limits";
import { MCP_BODY_LIMIT } from "@/lib/mcp/limits";
import { SIMULATE_MAX_BYTES } from "@/lib/sandbox/limits";
import { BATCH_MAX_BYTES } from "@/lib/schemas/public-read";
import { AUTH_BODY_LIMIT } from "@/lib/service-auth/limits";
import { isMarkdownPagePath, pagePathOfTwin } from "@/lib/docs/twins";
import { pathOf } from "@/lib/http/api";

/** How a refusal made before the handler runs is shaped: CONTRACT.md §2's JSON body, or the JSON-RPC error of MCP or A2A. */
export type RefusalShape = "rest" | "mcp" | "a2a";

export type RouteMethod = HttpMethod | "OPTIONS";

export interface RoutePolicy {
  /** The class of work admission control puts it in; null: never queued (answered from memory). */
  workClass: WorkClass | null;
  /** The largest request body, in bytes, the path takes. */
  bodyLimit: number;
  refusal: RefusalShape;
}

export interface RouteEntry<Path extends string = string, Front extends RouteMethod = RouteMethod> extends RoutePolicy {
  /** The path as app/ spells it: `[slug]`, `[...path]` and `[[...path]]` are Next's dynamic segments. */
  path: Path;
  /** The methods its handler answers (every other one is 405, or the catch-all's own answer). */
  methods: readonly RouteMethod[];
  /** Whether it renders a page (app/…/page.tsx): proxy.ts's page matcher sends it through the page work. */
  page: boolean;
  /** The methods the node:http front answers under `npm start`, with the handlers of lib/routes/front.ts. */
  front: readonly Front[];
}

/** Paths whose handler reads no body (pages, documents, GET APIs) take at most this much; a larger one is 413. */
export const DEFAULT_BODY_LIMIT = 16 * 1024;
/** next-auth's forms (sign-in, sign-out): an e-mail, a password, a CSRF token and a return path. */
export const AUTH_FORM_BODY_LIMIT = 16 * 1024;

const READ: readonly RouteMethod[] = ["GET", "HEAD"];
const ANY: readonly RouteMethod[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

interface Options<Front extends RouteMethod> {
  methods?: readonly RouteMethod[];
  bodyLimit?: number;
  refusal?: RefusalShape;
  front?: readonly Front[];
}

/** An API endpoint (app/…/route.ts): by default a GET/HEAD document of general work. */
function api<const Path extends string, const Front extends RouteMethod = never>(
  path: Path,
  workClass: WorkClass | null,
  { methods = READ, bodyLimit = DEFAULT_BODY_LIMIT, refusal = "rest", front = [] }: Options<Front> = {},
): RouteEntry<Path, Front> {
  return { path, methods, workClass, bodyLimit, refusal, page: false, front };
}

/** A page (app/…/page.tsx): server-rendered, in the pages class. */
function page<const Path extends string>(path: Path, workClass: WorkClass = "pages"): RouteEntry<Path, never> {
  return { path, methods: READ, workClass, bodyLimit: DEFAULT_BODY_LIMIT, refusal: "rest", page: true, front: [] };
}

/**
 * Every endpoint. Those with no class of work (null) are answered from memory or from a cached result in
 * microseconds: never queued, so an operator can always see the process (tests/http/fairness.test.ts floods them
 * during an own-account read).
 */
export const ROUTES = [
  // Operator and crawler endpoints, never queued.
  api("/healthz", null, { front: ["GET", "HEAD"] }),
  api("/readyz", null, { front: ["GET", "HEAD"] }),
  api("/metrics", null),
  api("/favicon.ico", null, { front: ["GET", "HEAD"] }),
  api("/robots.txt", null, { front: ["GET", "HEAD"] }),
  // A member's account, read by an agent with its token.
  api("/api/v1/agent/account", "account", { front: ["GET", "HEAD"] }),
  api("/api/v1/agent/registrations", "account", { front: ["GET", "HEAD"] }),
  // Token endpoints.
  api("/oauth2/token", "token", { methods: ["POST"], bodyLimit: AUTH_BODY_LIMIT, front: ["POST"] }),
  api("/oauth2/revoke", "token", { methods: ["POST"], bodyLimit: AUTH_BODY_LIMIT }),
  // Pages and the forms members post from them.
  page("/", "general"),
  page("/login"),
  page("/account"),
  api("/account/revoke", "pages", { methods: ["POST"], bodyLimit: REVOKE_FORM_LIMIT_BYTES }),
  api("/account/settings", "pages", { methods: ["POST"], bodyLimit: SETTINGS_FORM_LIMIT_BYTES }),
  page("/agent/authorize"),
  api("/agent/authorize/decision", "pages", { methods: ["POST"], bodyLimit: DECISION_FORM_LIMIT_BYTES }),
  page("/agent/authorize/done"),
  page("/docs", "general"),
  page("/docs/[slug]", "general"),
  page("/map", "general"),
  page("/members/[slug]", "general"),
  // next-auth's sign-in, callback and sign-out.
  api("/api/auth/[...nextauth]", "pages", { methods: ["GET", "HEAD", "POST"], bodyLimit: AUTH_FORM_BODY_LIMIT }),
  // Public reads, tool servers and agent registration.
  api("/mcp", "public", { methods: ["POST"], bodyLimit: MCP_BODY_LIMIT, refusal: "mcp", front: ["POST"] }),
  api("/mcp/docs", "public", { methods: ["POST"], bodyLimit: MCP_BODY_LIMIT, refusal: "mcp" }),
  api("/a2a", "public", { methods: ["POST"], bodyLimit: A2A_BODY_LIMIT, refusal: "a2a", front: ["POST"] }),
  api("/ask", "public", { front: ["GET", "HEAD"] }),
  api("/api/v1/batch", "public", { methods: ["POST"], bodyLimit: BATCH_MAX_BYTES }),
  api("/api/v1/sandbox/simulate", "public", { methods: ["POST"], bodyLimit: SIMULATE_MAX_BYTES }),
  api("/agent/identity", "public", { methods: ["POST"], bodyLimit: AUTH_BODY_LIMIT }),
  api("/agent/identity/claim", "public", { methods: ["POST"], bodyLimit: AUTH_BODY_LIMIT }),
  api("/api/map/search", "public", { methods: ["GET"] }),
  // Documents: discovery, catalogs, server cards, markdown twins.
  api("/api", "general"),
  api("/api/[...path]", "general", { methods: ANY }),
  api("/api/cron/janitor", "general", { methods: ["GET"] }),
  api("/api/cron/webhooks", "general", { methods: ["GET"] }),
  api("/auth.md", "general"),
  api("/openapi.json", "general"),
  api("/sitemap.xml", "general"),
  api("/page-markdown/[[...path]]", "general"),
  api("/mcp/server-card", "general"),
  api("/mcp/docs/server-card", "general"),
  api("/.well-known/[...path]", "general", { methods: ANY }),
  api("/.well-known/agent", "general"),
  api("/.well-known/agent-card.json", "general"),
  api("/.well-known/agent-skills/index.json", "general"),
  api("/.well-known/agent-skills/[name]/SKILL.md", "general"),
  api("/.well-known/api-catalog", "general"),
  api("/.well-known/jwks.json", "general"),
  api("/.well-known/mcp", "general"),
  api("/.well-known/mcp/catalog.json", "general"),
  api("/.well-known/mcp-docs.json", "general"),
  api("/.well-known/mcp-docs/server-card.json", "general"),
  api("/.well-known/oauth-authorization-server", "general"),
  api("/.well-known/oauth-protected-resource", "general"),
  api("/.well-known/oauth-protected-resource/api", "general"),
  api("/.well-known/openid-configuration", "general", { methods: ANY }),
] as const;

export type Route = (typeof ROUTES)[number];

/** The paths that skip admission (the entries without a class of work), besides the build's static files. */
export const UNQUEUED: readonly string[] = ROUTES.filter((route) => route.workClass === null).map((route) => route.path);

/** The template of a path no entry names (Next's 404 page, a build file): one label, so a scan cannot grow the series. */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * The route a request goes by: the policy server.ts's listener and proxy.ts apply to it, and the template its log
 * line, its span and its metrics name it by ("/members/[slug]"), never the raw path. One answer per path, so the
 * three never disagree.
 */
export interface ResolvedRoute extends RoutePolicy {
  /** The entry's path as app/ spells it, or UNMATCHED_ROUTE. */
  readonly route: string;
}

/** Next's build files: served from disk, never queued (an unknown one is a bare 404 from server.ts's listener). */
const STATIC_PREFIX = "/_next/static/";
const STATIC_FILE: ResolvedRoute = { route: UNMATCHED_ROUTE, workClass: null, bodyLimit: DEFAULT_BODY_LIMIT, refusal: "rest" };
/** A path no entry names (Next answers its 404 page): general work of a small body. */
const UNMATCHED: ResolvedRoute = { route: UNMATCHED_ROUTE, workClass: "general", bodyLimit: DEFAULT_BODY_LIMIT, refusal: "rest" };

/** Whether a path segment is one of Next's dynamic segments. */
const isDynamicSegment = (segment: string): boolean => segment.startsWith("[");

const resolved = (entry: RouteEntry): ResolvedRoute => ({ route: entry.path, workClass: entry.workClass, bodyLimit: entry.bodyLimit, refusal: entry.refusal });

/**
 * The lookups, built once: static paths by their exact path; a dynamic entry by its static part up to its first
 * dynamic segment, ending in "/" (an optional catch-all also answers that part without the "/").
 */
const EXACT = new Map<string, ResolvedRoute>();
const BY_PREFIX = new Map<string, ResolvedRoute>();
for (const entry of ROUTES as readonly RouteEntry[]) {
  const route = resolved(entry);
  const segments = entry.path.split("/");
  const dynamicAt = segments.findIndex(isDynamicSegment);
  if (dynamicAt < 0) {
    EXACT.set(entry.path, route);
    continue;
  }
  const prefix = `${segments.slice(0, dynamicAt).join("/")}/`;
  BY_PREFIX.set(prefix, route);
  if (segments[dynamicAt]!.startsWith("[[")) EXACT.set(prefix.length > 1 ? prefix.slice(0, -1) : prefix, route);
}

/**
 * A page's markdown twin ("/docs.md", "/index.md", or the page asked for as text/markdown): proxy.ts rewrites it to the
 * internal markdown route, whose policy it gets; it goes by its page's template.
 */
const MARKDOWN_ROUTE = EXACT.get("/page-markdown")!;
const TWINS = new Map<string, ResolvedRoute>(
  (ROUTES as readonly RouteEntry[]).filter((entry) => entry.page).map((entry) => [entry.path, { ...MARKDOWN_ROUTE, route: entry.path }]),
);

/**
 * The route of a request path (without its query), run on every request: one Map lookup for an exact path; else the
 * build's static files; else, trailing slashes ignored (Next redirects them to the path without), the path's own
 * prefixes, longest first, one Map lookup each, for an entry the path fits segment by segment as Next matches it
 * ("/docs/a/b" is not "/docs/[slug]"); else a page's markdown twin; else UNMATCHED_ROUTE, general work.
 */
export function resolveRoute(path: string): ResolvedRoute {
  const exact = EXACT.get(path);
  if (exact !== undefined) return exact;
  if (path.startsWith(STATIC_PREFIX)) return STATIC_FILE;
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  const trimmed = end === path.length ? path : path.slice(0, end);
  if (trimmed !== path) {
    const exactTrimmed = EXACT.get(trimmed);
    if (exactTrimmed !== undefined) return exactTrimmed;
  }
  for (let cut = trimmed.lastIndexOf("/"); cut > 0; cut = trimmed.lastIndexOf("/", cut - 1)) {
    const dynamic = BY_PREFIX.get(trimmed.slice(0, cut + 1));
    if (dynamic !== undefined && matchesWhole(dynamic.route, trimmed)) return dynamic;
  }
  const page = pagePathOfTwin(trimmed);
  if (page !== null && isMarkdownPagePath(page)) return TWINS.get(resolveRoute(page).route) ?? UNMATCHED;
  return UNMATCHED;
}

/** The route of a request target as node:http gives it ("/ask?query=x"; undefined: "/"). */
export function routeOfTarget(target: string | undefined): ResolvedRoute {
  return resolveRoute(pathOf(target));
}

/** Whether a path fits a dynamic entry segment by segment, as Next matches it ("/docs/a/b" is not "/docs/[slug]"). */
function matchesWhole(template: string, path: string): boolean {
  const expected = template.split("/");
  const actual = path.split("/");
  for (let i = 0; i < expected.length; i++) {
    const segment = expected[i]!;
    if (segment.startsWith("[[...")) return true;
    if (i >= actual.length) return false;
    if (!isDynamicSegment(segment)) {
      if (segment !== actual[i]) return false;
      continue;
    }
    if (actual[i] === "") return false;
    if (segment.startsWith("[...")) return true;
  }
  return actual.length === expected.length;
}

/** Whether the path is one of the build's static files' folder (served by Next from disk, never queued). */
export function isStaticFilePath(path: string): boolean {
  return path.startsWith(STATIC_PREFIX);
}

/** Every entry by its path (for the tests that tie the table to app/ and proxy.ts). */
export function routeTable(): ReadonlyMap<string, RouteEntry> {
  return new Map((ROUTES as readonly RouteEntry[]).map((route) => [route.path, route]));
}
