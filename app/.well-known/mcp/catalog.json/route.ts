// The MCP server-card draft's domain catalog: where each server card is.
import { mcpCatalog } from "@/lib/discovery/mcp-cards";
import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { route, refuseOtherMethods } from "@/lib/http/route";

const serve = () => discoveryJson(mcpCatalog(), "application/json");

export const GET = route(serve);
export const HEAD = route(() => headOf(serve()));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
