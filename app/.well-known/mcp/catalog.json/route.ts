// The MCP server-card draft's domain catalog: where each server card is.
import { mcpCatalog } from "@/lib/discovery/mcp-cards";
import { discoveryJson } from "@/lib/discovery/respond";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

const serve = () => discoveryJson(mcpCatalog(), "application/json");

export const GET = apiRoute(serve);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
