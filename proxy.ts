// Markdown twins of the human pages (CONTRACT.md §9, STANDARDS.md §13): `<page>.md`, or the page path with
// `Accept: text/markdown`, is rewritten to the internal route app/page-markdown, which renders the page as
// markdown. HTML answers of the same pages carry a `Link` to the twin. (Next's page renderer replaces any
// Vary set here with its own; HTML pages are `no-store`, so no shared cache can hand them to a markdown reader,
// and every markdown answer carries `Vary: Accept`.)
// The matcher lists page paths only, so API routes, tool servers and discovery never pass through here.
import { NextResponse, type NextRequest } from "next/server";
import { absoluteUrl } from "@/lib/config";
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

export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  const readMethod = request.method === "GET" || request.method === "HEAD";
  const twinOf = pagePathOfTwin(pathname);
  if (twinOf !== null) {
    return readMethod && isMarkdownPagePath(twinOf) ? rewriteToMarkdown(request, twinOf) : NextResponse.next();
  }
  if (!isMarkdownPagePath(pathname)) return NextResponse.next();
  if (readMethod && prefersMarkdown(request.headers.get("accept"), "text/html")) return rewriteToMarkdown(request, pathname);
  const response = NextResponse.next();
  response.headers.set("Vary", "Accept");
  response.headers.set("Link", `<${absoluteUrl(markdownTwinPath(pathname))}>; rel="alternate"; type="text/markdown"`);
  return response;
}

export const config = {
  matcher: [
    "/",
    "/index.md",
    "/login",
    "/login.md",
    "/account",
    "/account.md",
    "/map",
    "/map.md",
    "/docs",
    "/docs.md",
    "/docs/:slug",
    "/agent/authorize",
    "/agent/authorize.md",
  ],
};
