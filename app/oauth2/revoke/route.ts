// POST /oauth2/revoke: revoke one access token (RFC 7009, CONTRACT.md §5).
import { notAllowed, route } from "@/lib/http/route";
import { handleRevoke } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = route((request) => handleRevoke(request));
export const GET = notAllowed(["POST"]);
export const HEAD = GET;
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
export const OPTIONS = GET;
