import { handleDecisionPost } from "@/lib/approval";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const POST = apiRoute((request) => handleDecisionPost(request));
export const { GET, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
