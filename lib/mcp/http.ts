// Serves one MCP server over Streamable HTTP, statelessly: a fresh McpServer and transport per request
// (sessionIdGenerator undefined, JSON responses), so any instance answers any request.
import type { ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { INTERNAL_RPC_ERROR, jsonRpcErrorReply, jsonRpcTransportErrorReply, temporarilyUnavailableRpcError } from "@/lib/http/errors";
import type { BudgetName } from "@/lib/rate-limit/budgets";
import { batchRefusal, chargeJsonRpcPost, type ExtraBudgetOf } from "@/lib/rate-limit/json-rpc";
import { rejectDnsRebinding } from "./rebinding";

// Unless given one, the SDK builds a new Ajv instance (its validator for elicitation answers) in every Server
// it constructs: about a quarter of a stateless tools/call (bench/README.md). One instance serves them all;
// it keeps no per-request state.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** Options for a per-request McpServer: its instructions, and the shared JSON Schema validator. */
export function statelessServerOptions(instructions: string): ServerOptions {
  return { instructions, jsonSchemaValidator };
}

/** The budget a POST to an MCP endpoint spends (lib/rate-limit/budgets.ts), per message, by this caller. */
export interface McpLimits {
  budget: BudgetName;
  /** lib/http/client-ip.ts callerKey of the request. */
  callerKey: string;
  /** The extra budget of a message (a tools/call of a lookup tool). */
  extraBudgetOf?: ExtraBudgetOf;
}

/** The largest JSON-RPC body read (the MCP SDK's own limit for node:http). */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** The request headers the SDK's transport reads (it is handed a Request built from these). */
const TRANSPORT_HEADERS = ["accept", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"] as const;

/** The body: a parsed JSON message, or text the SDK is handed to answer as it does (not JSON, empty). */
type McpBody = { parsed: unknown } | { text: string };

async function readMcpBody(request: ApiRequest): Promise<McpBody | ApiReply> {
  const body = await request.readBody(MCP_BODY_LIMIT);
  if (!body.ok) {
    // Bytes that are not UTF-8 cannot be JSON text (RFC 8259 §8.1): the SDK's own parse error.
    return body.reason === "too_large"
      ? jsonRpcTransportErrorReply(413, "Request body too large.")
      : jsonRpcErrorReply(null, { code: -32700, message: "Parse error: Invalid JSON" }, 400);
  }
  if (body.value === "") return { text: "" };
  try {
    return { parsed: JSON.parse(body.value) as unknown };
  } catch {
    return { text: body.value };
  }
}

/** The web Request the SDK's transport takes: the headers it reads, and the body only when it is not handed parsed. */
function transportRequest(request: ApiRequest, body: McpBody): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  // Only the path matters to the SDK; absolute URLs always come from BASE_URL, never from Host.
  return new Request(`http://localhost${request.target}`, { method: request.method, headers, body: "text" in body && body.text !== "" ? body.text : null });
}

async function replyOf(response: Response): Promise<ApiReply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers["access-control-allow-origin"] = "*";
  headers["cache-control"] = "no-store";
  return { status: response.status, headers, body: response.body === null ? null : await response.text() };
}

/**
 * Handles a POST to an MCP endpoint (the one adapter between ApiRequest/ApiReply and the SDK's web-standard
 * transport): DNS-rebinding attempts are refused first, then POSTs over the message cap or their caller's
 * budget; the body is read and parsed once and handed to the SDK. Authorization headers are ignored: these
 * servers are anonymous.
 */
export async function serveMcp(request: ApiRequest, buildServer: () => McpServer, limits?: McpLimits): Promise<ApiReply> {
  const refusal = rejectDnsRebinding(request.headers);
  if (refusal) return refusal;
  const body = await readMcpBody(request);
  if ("status" in body) return body;
  if (limits && "parsed" in body) {
    const limited = batchRefusal(body.parsed, request.headers.get("mcp-protocol-version")) ?? chargeJsonRpcPost(limits.budget, limits.callerKey, body.parsed, limits.extraBudgetOf);
    if (limited) return limited;
  } else if (limits) {
    const limited = chargeJsonRpcPost(limits.budget, limits.callerKey, undefined, limits.extraBudgetOf);
    if (limited) return limited;
  }
  const server = buildServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(transportRequest(request, body), "parsed" in body ? { parsedBody: body.parsed } : undefined);
    // The SDK answers 202 to a POST without requests, an empty batch `[]` included; JSON-RPC 2.0 §6 makes
    // that an Invalid Request.
    if (response.status === 202 && "parsed" in body && Array.isArray(body.parsed) && body.parsed.length === 0) {
      return jsonRpcErrorReply(null, { code: -32600, message: "Invalid Request: an empty batch holds no message." }, 400);
    }
    return await replyOf(response);
  } catch (error) {
    return failureReply(error);
  } finally {
    // JSON responses are complete once handleRequest resolves. Close on the next turn, once the SDK has
    // finished its bookkeeping of the request: closed at once, it aborts the handler's AbortController
    // (a DOMException with a stack) and fails it with an McpError (bench/README.md).
    setImmediate(() => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
  }
}

/** A failure outside any tool (tools answer their own failures as tool errors): a JSON-RPC error in our own words. */
function failureReply(error: unknown): ApiReply {
  if (isDatabaseUnavailable(error)) {
    const failure = temporarilyUnavailableRpcError();
    return jsonRpcErrorReply(null, failure.error, failure.status, failure.headers);
  }
  const e = error as { name?: string; message?: string } | null;
  console.error(
    `[agent-gate] mcp request failed: ${e?.name ?? "error"}: ${String(e?.message ?? error)
      .replace(/\s+/g, " ")
      .slice(0, 300)}`,
  );
  return jsonRpcErrorReply(null, INTERNAL_RPC_ERROR, 500);
}

/** GET on a stateless JSON-response MCP endpoint: no SSE stream is offered (Streamable HTTP allows 405). */
export function mcpGetNotAllowed(): ApiReply {
  return jsonRpcTransportErrorReply(405, "Method not allowed: this stateless server offers no SSE stream; POST JSON-RPC messages.", {
    Allow: "POST",
    "Access-Control-Allow-Origin": "*",
  });
}
