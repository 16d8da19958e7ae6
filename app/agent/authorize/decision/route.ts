import { handleDecisionPost } from "@/lib/approval";
import { notAllowed, route } from "@/lib/http/route";

export const POST = route((request) => handleDecisionPost(request));
export const GET = notAllowed(["POST"]);
export const PUT = notAllowed(["POST"]);
export const PATCH = notAllowed(["POST"]);
export const DELETE = notAllowed(["POST"]);
