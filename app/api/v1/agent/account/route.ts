// GET/HEAD /api/v1/agent/account: own-account read with scope (CONTRACT.md §6).
import { notAllowed, route } from "@/lib/http/route";
import { serveOwnAccountRoute } from "@/lib/agent-api";

export const dynamic = "force-dynamic";
export const GET = route((request) => serveOwnAccountRoute(request, "account"));
export const HEAD = GET;
export const POST = notAllowed(["GET", "HEAD"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
export const OPTIONS = POST;
