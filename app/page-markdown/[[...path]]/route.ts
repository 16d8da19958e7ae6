// Internal target of proxy.ts: the markdown rendering of a page (its `.md` twin or `Accept: text/markdown`).
import { markdownPageReply } from "@/lib/docs/responses";
import { MARKDOWN_TWIN_HEADER } from "@/lib/docs/twins";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute<{ path?: string[] }>((request, { path }) => {
  // Only proxy.ts's rewrites are served; the internal path itself is no page.
  const pagePath = request.headers.get(MARKDOWN_TWIN_HEADER) === "1" ? (path ? `/${path.join("/")}` : "/") : "/page-markdown";
  return markdownPageReply(pagePath);
});
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
