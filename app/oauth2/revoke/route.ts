// POST /oauth2/revoke: revoke one access token (RFC 7009, CONTRACT.md §5).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleRevoke } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = apiRoute((request) => handleRevoke(request));
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["POST"]);
