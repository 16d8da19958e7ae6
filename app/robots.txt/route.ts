// GET /robots.txt, built once per process (lib/discovery/robots.ts).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { robotsReply } from "@/lib/discovery/robots";

export const dynamic = "force-dynamic";
export const GET = apiRoute((request) => robotsReply(request));
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
