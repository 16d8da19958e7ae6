// /auth.md: the service_auth walkthrough as markdown (CONTRACT.md §7, §10); JSON 404 in private release mode.
import { authMarkdownReply } from "@/lib/docs/responses";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute(() => authMarkdownReply());
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
