// GET/HEAD /api/v1/agent/account: own-account read with scope (CONTRACT.md §6).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { serveOwnAccountRoute } from "@/lib/agent-api";

export const dynamic = "force-dynamic";
export const GET = apiRoute((request) => serveOwnAccountRoute(request, "account"));
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
