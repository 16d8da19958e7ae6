// Security headers (CONTRACT.md §8; issues 2 and 19). Two Content-Security-Policies, neither with 'unsafe-inline':
// - pages (every page is rendered per request: the root layout is dynamic, `ƒ` in the build output): a fresh
//   nonce per request (proxy.ts, the pattern Next.js documents); Next puts it on its own scripts. Pages
//   have no inline style: markdown tables align with classes (lib/docs/render.ts), React's `style` props are
//   set through the CSSOM, which CSP does not govern.
// - everything else (JSON APIs, route handlers, static files): SECURITY_HEADERS, applied by next.config.ts
//   to what Next answers and by lib/front to what the node:http front answers. Nothing it covers runs script;
//   its one inline style is the form-refusal page's (lib/http/browser-responses.ts), allowed by its hash.
// Strict-Transport-Security is added at run time when BASE_URL is https (next.config.ts is evaluated at build
// time, when the deployment's BASE_URL may not be known).
import { createHash } from "node:crypto";

/**
 * The style element of the form-refusal page (lib/http/browser-responses.ts); the static policy allows it by
 * its hash. Kept here, not there: next.config.ts imports this file and must not pull in the HTTP layer.
 */
export const REFUSAL_PAGE_STYLE = "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5}";

/** Directives both policies share. */
const SHARED_DIRECTIVES = ["img-src 'self' data:", "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'"];

function styleHash(css: string): string {
  return `'sha256-${createHash("sha256").update(css).digest("base64")}'`;
}

/** The policy of everything but pages: same-origin script files only, no inline script at all. */
export const STATIC_CONTENT_SECURITY_POLICY = ["default-src 'self'", "script-src 'self'", `style-src 'self' ${styleHash(REFUSAL_PAGE_STYLE)}`, ...SHARED_DIRECTIVES].join("; ");

/**
 * The policy of a page rendered with `nonce`: Next's inline bootstrap scripts carry the nonce, and
 * 'strict-dynamic' lets the scripts they load run ('self' is the fallback of browsers without CSP 3).
 */
export function pageContentSecurityPolicy(nonce: string): string {
  return ["default-src 'self'", `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`, `style-src 'self' 'nonce-${nonce}'`, ...SHARED_DIRECTIVES].join("; ");
}

export const SECURITY_HEADERS: readonly (readonly [name: string, value: string])[] = [
  ["X-Content-Type-Options", "nosniff"],
  ["Referrer-Policy", "no-referrer"],
  ["X-Frame-Options", "DENY"],
  ["Content-Security-Policy", STATIC_CONTENT_SECURITY_POLICY],
];

/** Two years, subdomains included (the value issue 19 asks for; browsers honour it over https only). */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

/** Strict-Transport-Security when the service is served over https (BASE_URL), else nothing. */
export function transportSecurityHeaders(baseUrl: string): readonly (readonly [name: string, value: string])[] {
  return baseUrl.startsWith("https://") ? [["Strict-Transport-Security", STRICT_TRANSPORT_SECURITY]] : [];
}
