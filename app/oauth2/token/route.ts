// POST /oauth2/token: the claim grant and the JWT-bearer grant (CONTRACT.md §5).
import { notAllowed, route } from "@/lib/http/route";
import { handleToken } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = route((request) => handleToken(request));
export const GET = notAllowed(["POST"]);
export const HEAD = GET;
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
export const OPTIONS = GET;
