// Internal target of proxy.ts: the markdown rendering of a page (its `.md` twin or `Accept: text/markdown`).
import { markdownPageResponse } from "@/lib/docs/responses";
import { notAllowed, route } from "@/lib/http/route";

type Params = { path?: string[] };

const handler = route<Params>(async (request, context) => {
  const { path } = await context.params;
  return markdownPageResponse(path ? `/${path.join("/")}` : "/", request.method === "HEAD");
});

export { handler as GET, handler as HEAD };
export const POST = notAllowed(["GET", "HEAD"]);
