// /mcp: the anonymous community tool server (MCP Streamable HTTP, stateless, JSON responses).
import { apiRoute, preflight, refuseOtherMethods } from "@/lib/routes/handlers";
import { serveCommunityMcp } from "@/lib/mcp/community";
import { mcpGetNotAllowed } from "@/lib/mcp/http";

export const dynamic = "force-dynamic";

export const POST = apiRoute((request) => serveCommunityMcp(request));
export const GET = apiRoute(() => mcpGetNotAllowed());
export const { PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
export const OPTIONS = preflight(["POST"], ["Content-Type", "Accept", "Authorization", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"]);
