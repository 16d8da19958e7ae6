// /mcp/docs: the read-only documentation MCP server (Streamable HTTP, stateless, JSON responses).
import { serveDocsMcp } from "@/lib/docs/mcp";
import { route } from "@/lib/http/route";
import { mcpGetNotAllowed } from "@/lib/mcp/http";

export const POST = route(async (request) => serveDocsMcp(request));
export const GET = route(async () => mcpGetNotAllowed());
export const DELETE = route(async () => mcpGetNotAllowed());
export const OPTIONS = route(
  async () =>
    new Response(null, {
      status: 204,
      headers: {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Authorization",
        "Access-Control-Max-Age": "86400",
      },
    }),
);
