// POST /oauth2/token: the claim grant and the JWT-bearer grant (CONTRACT.md §5).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleToken } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = apiRoute((request) => handleToken(request));
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["POST"]);
