// /auth.md: the service_auth walkthrough as markdown (CONTRACT.md §7, §10); JSON 404 in private release mode.
import { authMarkdownResponse } from "@/lib/docs/responses";
import { notAllowed, route } from "@/lib/http/route";

export const GET = route(async () => authMarkdownResponse());
export const HEAD = route(async () => authMarkdownResponse(true));
const other = notAllowed(["GET", "HEAD"]);
export { other as POST, other as PUT, other as PATCH, other as DELETE };
