import { handleRevokePost } from "@/lib/delegations/revoke-form";
import { notAllowed, route } from "@/lib/http/route";

export const POST = route((request) => handleRevokePost(request));
export const GET = notAllowed(["POST"]);
export const PUT = notAllowed(["POST"]);
export const PATCH = notAllowed(["POST"]);
export const DELETE = notAllowed(["POST"]);
