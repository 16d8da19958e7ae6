// Markdown twins of the human pages (CONTRACT.md §9, STANDARDS.md §13): `<page>.md`, or the page path with
// `Accept: text/markdown`, is rewritten to the internal route app/page-markdown, which renders the page as
// markdown. HTML answers of the same pages say so with `Vary: Accept` and a `Link` to the twin.
// The matcher lists page paths only, so API routes, tool servers and discovery never pass through here.
import { NextResponse, type NextRequest } from "next/server";
import { absoluteUrl } from "@/lib/config";
import { isMarkdownPagePath, markdownTwinPath, pagePathOfTwin, prefersMarkdown } from "@/lib/docs/twins";

/** Internal prefix of the markdown route; requests from outside never reach it directly. */
const INTERNAL_PREFIX = "/page-markdown";

function rewriteToMarkdown(request: NextRequest, pagePath: string): NextResponse {
  const target = request.nextUrl.clone();
  target.pathname = pagePath === "/" ? INTERNAL_PREFIX : `${INTERNAL_PREFIX}${pagePath}`;
  target.search = "";
  return NextResponse.rewrite(target);
}

export function proxy(request: NextRequest): NextResponse {
  const { pathname } = request.nextUrl;
  if (pathname === INTERNAL_PREFIX || pathname.startsWith(`${INTERNAL_PREFIX}/`)) {
    const target = request.nextUrl.clone();
    target.pathname = "/docs/__not-a-page__/__";
    return NextResponse.rewrite(target);
  }
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
    "/page-markdown",
    "/page-markdown/:path*",
  ],
};
