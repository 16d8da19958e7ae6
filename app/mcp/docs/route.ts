// /mcp/docs: the read-only documentation MCP server (Streamable HTTP, stateless, JSON responses).
import { serveDocsMcp } from "@/lib/mcp/docs";
import { apiRoute, preflight, refuseOtherMethods } from "@/lib/routes/handlers";
import { mcpGetNotAllowed } from "@/lib/mcp/http";

export const POST = apiRoute((request) => serveDocsMcp(request));
export const GET = apiRoute(() => mcpGetNotAllowed());
export const { PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
export const OPTIONS = preflight(["POST"], ["Content-Type", "Accept", "Authorization", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"]);
