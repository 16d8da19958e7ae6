import { handleRevokePost } from "@/lib/delegations/revoke-form";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const POST = apiRoute((request) => handleRevokePost(request));
export const { GET, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
