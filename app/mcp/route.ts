// /mcp: the anonymous community tool server (MCP Streamable HTTP, stateless, JSON responses).
import { mcpGetNotAllowed } from "@/lib/mcp/http";
import { serveCommunityMcp } from "@/lib/mcp/community";
import { corsPreflight } from "@/lib/http/cors";
import { notAllowed, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const POST = route((request) => serveCommunityMcp(request));
export const GET = mcpGetNotAllowed;
export const PUT = notAllowed(["POST"]);
export const PATCH = notAllowed(["POST"]);
export const DELETE = notAllowed(["POST"]);
export const OPTIONS = () => corsPreflight(["POST"], ["Content-Type", "Accept", "Authorization", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"]);
