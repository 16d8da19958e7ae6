// GET /favicon.ico: 204, never the not-found page (lib/discovery/robots.ts).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { faviconReply } from "@/lib/discovery/robots";

export const dynamic = "force-dynamic";
export const GET = apiRoute(() => faviconReply());
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
