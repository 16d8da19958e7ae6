// Which paths are pages with a markdown twin, and content negotiation for them. Kept free of file and
// database access: proxy.ts runs this on every page request.

/** Request header proxy.ts puts on its rewrites to the internal markdown route. */
export const MARKDOWN_TWIN_HEADER = "x-agent-gate-markdown-twin";

/** The paths of human pages that are not documents, in sitemap order. */
export const STATIC_PAGES = ["/", "/login", "/account", "/docs", "/map"] as const;

/** The .md twin of a page path ("/" → "/index.md"). */
export function markdownTwinPath(pagePath: string): string {
  return pagePath === "/" ? "/index.md" : `${pagePath}.md`;
}

/** The page path a twin path stands for, or null when it is not a twin ("/index.md" → "/"). */
export function pagePathOfTwin(twinPath: string): string | null {
  if (!twinPath.endsWith(".md")) return null;
  const page = twinPath.slice(0, -3);
  if (page === "/index" || page === "") return "/";
  return page;
}

/** Could this path be a page with a markdown rendering? (Cheap: no corpus access; for proxy.ts.) */
export function isMarkdownPagePath(pagePath: string): boolean {
  return (STATIC_PAGES as readonly string[]).includes(pagePath) || /^\/(docs|members)\/[a-z0-9]+(?:-[a-z0-9]+)*$/.test(pagePath) || pagePath === "/agent/authorize";
}

/** q-value of one media range in an Accept header (0 when absent); only explicit ranges count. */
export function acceptQuality(accept: string, mediaType: string): number {
  let best = 0;
  for (const part of accept.split(",")) {
    const [range, ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (range !== mediaType) continue;
    let q = 1;
    for (const param of params) {
      const m = /^q=([0-9.]+)$/.exec(param);
      if (m) q = Number(m[1]);
    }
    if (Number.isFinite(q) && q > best) best = Math.min(1, q);
  }
  return best;
}

/** Does this Accept header ask for markdown over `rival` (text/html for pages, application/json for /ask)? */
export function prefersMarkdown(accept: string | null, rival: string): boolean {
  if (!accept) return false;
  const markdown = acceptQuality(accept, "text/markdown");
  return markdown > 0 && markdown >= acceptQuality(accept, rival);
}
