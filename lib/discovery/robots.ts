// /robots.txt and /favicon.ico: asked for by every crawler and browser, so they cost a string from memory, never a
// render (issue 41: what skips admission's lanes is cheap). robots.txt names the sitemap by BASE_URL, which is only
// known at run time, so it is built once per process rather than at build time.
import { absoluteUrl } from "@/lib/config";
import { textReply, type ApiReply, type ApiRequest } from "@/lib/http/api";

const DISALLOWED = ["/api/", "/api/map/search", "/account", "/agent/authorize"];

let robotsText: string | undefined;

/** GET /robots.txt: crawlers keep out of the APIs, the map plumbing and the signed-in pages, and find the sitemap. */
export function robotsReply(request: ApiRequest): ApiReply {
  robotsText ??= ["User-Agent: *", "Allow: /", ...DISALLOWED.map((path) => `Disallow: ${path}`), "", `Sitemap: ${absoluteUrl("/sitemap.xml")}`, ""].join("\n");
  return textReply(robotsText, 200, { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=3600" }, request.method === "HEAD");
}

/** GET /favicon.ico: the service has no icon; 204 tells a browser so without rendering the not-found page. */
export function faviconReply(): ApiReply {
  return { status: 204, headers: { "cache-control": "public, max-age=86400" }, body: null };
}
