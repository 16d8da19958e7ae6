import { handleDecisionPost } from "@/lib/approval";
import { apiRoute, refuseOtherMethods } from "@/lib/http/route";

export const POST = apiRoute((request) => handleDecisionPost(request));
export const { GET, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
