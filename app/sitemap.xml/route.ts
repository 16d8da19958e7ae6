// /sitemap.xml: every human page and its markdown twin.
import { sitemapReply } from "@/lib/docs/responses";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute(() => sitemapReply());
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
