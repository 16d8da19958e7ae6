// POST /agent/identity/claim: refresh an expired claim attempt (CONTRACT.md §4).
import { notAllowed, route } from "@/lib/http/route";
import { handleClaimRefresh } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = route((request) => handleClaimRefresh(request));
export const GET = notAllowed(["POST"]);
export const HEAD = GET;
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
export const OPTIONS = GET;
