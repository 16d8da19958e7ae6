// /sitemap.xml: every human page and its markdown twin.
import { sitemapResponse } from "@/lib/docs/responses";
import { notAllowed, route } from "@/lib/http/route";

export const GET = route(async () => sitemapResponse());
export const HEAD = route(async () => sitemapResponse(true));
const other = notAllowed(["GET", "HEAD"]);
export { other as POST, other as PUT, other as PATCH, other as DELETE };
