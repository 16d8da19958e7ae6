// The server card of the community tool server at /mcp.
import { communityServerCard, SERVER_CARD_CONTENT_TYPE } from "@/lib/discovery/mcp-cards";
import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { route, refuseOtherMethods } from "@/lib/http/route";

const serve = () => discoveryJson(communityServerCard(), SERVER_CARD_CONTENT_TYPE);

export const GET = route(serve);
export const HEAD = route(() => headOf(serve()));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
