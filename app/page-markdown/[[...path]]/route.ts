// Internal target of proxy.ts: the markdown rendering of a page (its `.md` twin or `Accept: text/markdown`).
import { markdownPageResponse } from "@/lib/docs/responses";
import { MARKDOWN_TWIN_HEADER } from "@/lib/docs/twins";
import { notAllowed, route } from "@/lib/http/route";

type Params = { path?: string[] };

const handler = route<Params>(async (request, context) => {
  const { path } = await context.params;
  // Only proxy.ts's rewrites are served; the internal path itself is no page.
  const pagePath = request.headers.get(MARKDOWN_TWIN_HEADER) === "1" ? (path ? `/${path.join("/")}` : "/") : "/page-markdown";
  return markdownPageResponse(pagePath, request.method === "HEAD");
});

export { handler as GET, handler as HEAD };
export const POST = notAllowed(["GET", "HEAD"]);
