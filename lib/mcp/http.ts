// Serves one MCP server over Streamable HTTP, statelessly: a fresh McpServer and transport per request
// (sessionIdGenerator undefined, JSON responses), so any instance answers any request.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { errorToResponse } from "@/lib/http/route";

/** Handles a POST to an MCP endpoint. Authorization headers are ignored: these servers are anonymous. */
export async function serveMcp(request: Request, buildServer: () => McpServer): Promise<Response> {
  const server = buildServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    const headers = new Headers(response.headers);
    headers.set("Access-Control-Allow-Origin", "*");
    headers.set("Cache-Control", "no-store");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  } catch (error) {
    return errorToResponse(error);
  } finally {
    // JSON responses are complete once handleRequest resolves; closing frees the per-request server.
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  }
}

/** GET on a stateless JSON-response MCP endpoint: no SSE stream is offered (Streamable HTTP allows 405). */
export function mcpGetNotAllowed(): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this stateless server offers no SSE stream; POST JSON-RPC messages." }, id: null }), {
    status: 405,
    headers: { Allow: "POST", "Content-Type": "application/json", "Access-Control-Allow-Origin": "*" },
  });
}
