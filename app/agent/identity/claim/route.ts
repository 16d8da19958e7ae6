// POST /agent/identity/claim: refresh an expired claim attempt (CONTRACT.md §4).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleClaimRefresh } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = apiRoute((request) => handleClaimRefresh(request));
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["POST"]);
