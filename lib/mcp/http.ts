// Serves one MCP server over Streamable HTTP, statelessly: a fresh McpServer and transport per request
// (sessionIdGenerator undefined, JSON responses), so any instance answers any request.
import type { ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { jsonRpcTransportError } from "@/lib/http/errors";
import { errorToResponse } from "@/lib/http/route";
import { rejectDnsRebinding } from "./rebinding";

// Unless given one, the SDK builds a new Ajv instance (its validator for elicitation answers) in every Server
// it constructs: about a quarter of a stateless tools/call (bench/README.md). One instance serves them all;
// it keeps no per-request state.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** Options for a per-request McpServer: its instructions, and the shared JSON Schema validator. */
export function statelessServerOptions(instructions: string): ServerOptions {
  return { instructions, jsonSchemaValidator };
}

/** A JSON-RPC message the caller has already read and parsed (the node:http front), so the SDK does not read the body again. */
export interface ParsedMcpBody {
  parsedBody: unknown;
}

/**
 * Handles a POST to an MCP endpoint, refusing DNS-rebinding attempts first. Authorization headers are
 * ignored: these servers are anonymous.
 */
export async function serveMcp(request: Request, buildServer: () => McpServer, parsed?: ParsedMcpBody): Promise<Response> {
  const refusal = rejectDnsRebinding(request);
  if (refusal) return refusal;
  const server = buildServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, parsed);
    // The SDK builds its responses with `new Response`, whose headers can be set in place.
    response.headers.set("Access-Control-Allow-Origin", "*");
    response.headers.set("Cache-Control", "no-store");
    return response;
  } catch (error) {
    return errorToResponse(error);
  } finally {
    // JSON responses are complete once handleRequest resolves. Close on the next turn, once the SDK has
    // finished its bookkeeping of the request: closed at once, it aborts the handler's AbortController
    // (a DOMException with a stack) and fails it with an McpError — 10 % of a tools/call (bench/README.md).
    setImmediate(() => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
  }
}

/** GET on a stateless JSON-response MCP endpoint: no SSE stream is offered (Streamable HTTP allows 405). */
export function mcpGetNotAllowed(): Response {
  return jsonRpcTransportError(405, "Method not allowed: this stateless server offers no SSE stream; POST JSON-RPC messages.", { Allow: "POST", "Access-Control-Allow-Origin": "*" });
}
