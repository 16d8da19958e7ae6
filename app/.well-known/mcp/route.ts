// The server card of the community tool server at /mcp.
import { communityServerCard, SERVER_CARD_CONTENT_TYPE } from "@/lib/discovery/mcp-cards";
import { discoveryJson } from "@/lib/discovery/respond";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

const serve = () => discoveryJson(communityServerCard(), SERVER_CARD_CONTENT_TYPE);

export const GET = apiRoute(serve);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
