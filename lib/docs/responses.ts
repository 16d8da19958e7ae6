// HTTP answers of the read-only docs surfaces: markdown twins, /ask, /auth.md and /sitemap.xml.
import { publicCaller } from "@/lib/agent-identity";
import { absoluteUrl } from "@/lib/config";
import { queryOf, textReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { callerKey } from "@/lib/http/client-ip";
import { errorReply, notFoundReply, rateLimitedReply } from "@/lib/http/errors";
import { chargeCaller } from "@/lib/rate-limit/charge";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";
import { TOP_K_DEFAULT } from "@/lib/schemas/public-read";
import { turns } from "@/lib/server/turns";
import { askDocs, askMarkdown, parseAskQuery } from "./ask";
import { docMarkdown, memberPageMarkdown, pageMarkdown, pagePaths } from "./pages";
import { hasCachedAnswer } from "./search";
import { markdownTwinPath, prefersMarkdown } from "./twins";

export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

/** The slug of the document /auth.md serves: the service_auth walkthrough. */
export const AUTH_WALKTHROUGH_SLUG = "service-auth";

const PUBLIC_READ = { "Access-Control-Allow-Origin": "*" } as const;

/** The markdown rendering of a page path (the target of proxy.ts's rewrites). */
export async function markdownPageReply(pagePath: string): Promise<ApiReply> {
  const page = (await memberPageMarkdown(pagePath)) ?? pageMarkdown(pagePath);
  return textReply(page.markdown, page.status, { "content-type": MARKDOWN_TYPE, vary: "Accept", "cache-control": "public, max-age=300", "access-control-allow-origin": "*" });
}

const ASK_HEADERS = { vary: "Accept", "cache-control": "public, max-age=300", "access-control-allow-origin": "*" } as const;

/** GET|HEAD /ask (CONTRACT.md §9): JSON by default, markdown for Accept: text/markdown; same question, same bytes. */
export async function askReply(request: ApiRequest): Promise<ApiReply> {
  const head = request.method === "HEAD";
  // Every question spends one unit of the caller's ask budget (lib/shared-state; with the memory store a Map lookup,
  // answered without a turn), before any search.
  const found = publicCaller(request, callerKey(request.headers));
  const charged = chargeCaller(found instanceof Promise ? await found : found, (key) => [{ budget: "ask", key, cost: 1 }]);
  const { refused } = charged instanceof Promise ? await charged : charged;
  if (refused) return rateLimitedReply(refused.retryAfterSeconds, PUBLIC_READ);
  const parsed = parseAskQuery(new URLSearchParams(queryOf(request.target)));
  if (!parsed.ok) return errorReply("invalid_request", parsed.message, { headers: { ...PUBLIC_READ, Vary: "Accept" } });
  // A new question is a search (the costliest work here): it waits for its turn (lib/server/turns), a cached one
  // answers at once.
  if (!hasCachedAnswer(parsed.query, TOP_K_DEFAULT)) await turns().wait();
  const result = askDocs(parsed.query, TOP_K_DEFAULT);
  if (prefersMarkdown(request.headers.get("accept"), "application/json")) {
    return textReply(askMarkdown(result), 200, { ...ASK_HEADERS, "content-type": MARKDOWN_TYPE }, head);
  }
  return textReply(JSON.stringify(result), 200, { ...ASK_HEADERS, "content-type": "application/json" }, head);
}

/** /auth.md: the service_auth walkthrough as markdown; the JSON 404 when discovery is private (CONTRACT.md §7). */
export function authMarkdownReply(): ApiReply {
  if (!isAuthDiscoveryPublic()) return notFoundReply("Authorization discovery is not published in this release mode.");
  const markdown = docMarkdown(AUTH_WALKTHROUGH_SLUG);
  if (!markdown) return notFoundReply("The service_auth walkthrough is not published.");
  return textReply(markdown, 200, { "content-type": MARKDOWN_TYPE, "cache-control": "public, max-age=300", "access-control-allow-origin": "*" });
}

const escapeXml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Every human page and its markdown twin, absolute URLs from BASE_URL. */
export function sitemapXml(): string {
  const urls = pagePaths().flatMap((p) => [absoluteUrl(p), absoluteUrl(markdownTwinPath(p))]);
  // The service_auth walkthrough is authorization discovery: listed only when the release mode publishes it.
  if (isAuthDiscoveryPublic()) urls.push(absoluteUrl("/auth.md"));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `  <url><loc>${escapeXml(u)}</loc></url>`).join("\n")}\n</urlset>\n`;
}

export function sitemapReply(): ApiReply {
  return textReply(sitemapXml(), 200, { "content-type": "application/xml; charset=utf-8", "cache-control": "public, max-age=300", "access-control-allow-origin": "*" });
}
