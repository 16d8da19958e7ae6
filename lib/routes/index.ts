// The service's paths and what the server must know of each before any handler runs (issue 41): its class of work
// (lib/admission), the largest body it takes (refused with 413 before it is read, in every start mode: server.ts's
// body gate, proxy.ts under a bare `next start` and on Vercel), and the shape its refusals take. Every path that
// skips admission is listed here, in UNQUEUED, and nowhere else. The limits are the handlers' own constants, so a
// handler and the gate in front of it never disagree.
import type { WorkClass } from "@/lib/admission";
import { A2A_BODY_LIMIT } from "@/lib/a2a/jsonrpc";
import { DECISION_FORM_LIMIT_BYTES, REVOKE_FORM_LIMIT_BYTES } from "@/lib/http/form-limits";
import { MCP_BODY_LIMIT } from "@/lib/mcp/http";
import { SIMULATE_MAX_BYTES } from "@/lib/sandbox/simulate";
import { BATCH_MAX_BYTES } from "@/lib/schemas/public-read";
import { AUTH_BODY_LIMIT } from "@/lib/service-auth/http";

/** How a refusal made before the handler runs is shaped: CONTRACT.md §2's JSON body, or the JSON-RPC error of MCP or A2A. */
export type RefusalShape = "rest" | "mcp" | "a2a";

export interface RoutePolicy {
  /** The class of work admission control puts it in; null: never queued (answered from memory, listed in UNQUEUED). */
  workClass: WorkClass | null;
  /** The largest request body, in bytes, the path takes. */
  bodyLimit: number;
  refusal: RefusalShape;
}

/** Paths whose handler reads no body (pages, documents, GET APIs) take at most this much; a larger one is 413. */
export const DEFAULT_BODY_LIMIT = 16 * 1024;
/** next-auth's forms (sign-in, sign-out): an e-mail, a password, a CSRF token and a return path. */
export const AUTH_FORM_BODY_LIMIT = 16 * 1024;

const policy = (workClass: WorkClass | null, bodyLimit = DEFAULT_BODY_LIMIT, refusal: RefusalShape = "rest"): RoutePolicy => ({ workClass, bodyLimit, refusal });

/**
 * Answered from memory or from a cached result in microseconds: never queued, so an operator can always see the process
 * (tests/http/fairness.test.ts floods them during an own-account read). `/_next/static/` serves the build's files only
 * (an unknown one is a bare 404 from server.ts's listener, which renders nothing).
 */
export const UNQUEUED: readonly string[] = ["/healthz", "/readyz", "/metrics", "/favicon.ico", "/robots.txt"];
const STATIC_PREFIX = "/_next/static/";

const EXACT = new Map<string, RoutePolicy>([
  ...UNQUEUED.map((path): [string, RoutePolicy] => [path, policy(null)]),
  ["/api/v1/agent/account", policy("account")],
  ["/api/v1/agent/registrations", policy("account")],
  ["/oauth2/token", policy("token", AUTH_BODY_LIMIT)],
  ["/oauth2/revoke", policy("token", AUTH_BODY_LIMIT)],
  ["/login", policy("pages")],
  ["/account", policy("pages")],
  ["/account/revoke", policy("pages", REVOKE_FORM_LIMIT_BYTES)],
  ["/agent/authorize", policy("pages")],
  ["/agent/authorize/decision", policy("pages", DECISION_FORM_LIMIT_BYTES)],
  ["/agent/authorize/done", policy("pages")],
  ["/mcp", policy("public", MCP_BODY_LIMIT, "mcp")],
  ["/mcp/docs", policy("public", MCP_BODY_LIMIT, "mcp")],
  ["/a2a", policy("public", A2A_BODY_LIMIT, "a2a")],
  ["/ask", policy("public")],
  ["/api/v1/batch", policy("public", BATCH_MAX_BYTES)],
  ["/api/v1/sandbox/simulate", policy("public", SIMULATE_MAX_BYTES)],
  ["/agent/identity", policy("public", AUTH_BODY_LIMIT)],
  ["/agent/identity/claim", policy("public", AUTH_BODY_LIMIT)],
  ["/api/map/search", policy("public")],
]);

const STATIC_FILE = policy(null);
const NEXT_AUTH = policy("pages", AUTH_FORM_BODY_LIMIT);
const GENERAL = policy("general");

/** The policy of a request path (without its query): exact paths first, then the few prefixes, else general. */
export function routePolicy(path: string): RoutePolicy {
  const exact = EXACT.get(path);
  if (exact !== undefined) return exact;
  if (path.startsWith(STATIC_PREFIX)) return STATIC_FILE;
  if (path.startsWith("/api/auth/")) return NEXT_AUTH;
  return GENERAL;
}

/** Whether the path is one of the build's static files' folder (served by Next from disk, never queued). */
export function isStaticFilePath(path: string): boolean {
  return path.startsWith(STATIC_PREFIX);
}

/** The path of a request target, without its query. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? "/";
  const mark = raw.indexOf("?");
  return mark < 0 ? raw : raw.slice(0, mark);
}

/** Every exact path of the table with its policy (for the tests that tie the table to app/ and proxy.ts). */
export function routeTable(): ReadonlyMap<string, RoutePolicy> {
  return EXACT;
}
