// Serves one MCP server over Streamable HTTP, statelessly: a fresh McpServer and transport per request
// (sessionIdGenerator undefined, JSON responses), so any instance answers any request.
import type { ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { decodeUtf8 } from "@/lib/http/body";
import { INTERNAL_RPC_ERROR, jsonRpcTransportError, temporarilyUnavailableRpcError } from "@/lib/http/errors";
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

/** A JSON-RPC message the caller has already read and parsed (the node:http front), so the SDK does not read the body again. */
export interface ParsedMcpBody {
  parsedBody: unknown;
}

/** The budget a POST to an MCP endpoint spends (lib/rate-limit/budgets.ts), per message, by this caller. */
export interface McpLimits {
  budget: BudgetName;
  /** lib/http/client-ip.ts callerKey of the request. */
  callerKey: string;
  /** The extra budget of a message (a tools/call of a lookup tool). */
  extraBudgetOf?: ExtraBudgetOf;
}

/** The SDK's own body limit (4 MiB): a longer body is left to the SDK, which answers it as it always has. */
const SDK_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * The body of a route-file request as a parsed JSON-RPC message, read from a copy so that, when it is not UTF-8
 * JSON (or too long), the SDK still reads the untouched original and answers it exactly as before.
 */
async function readMcpBody(request: Request): Promise<ParsedMcpBody | undefined> {
  if (!request.body) return undefined;
  const reader = request.clone().body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > SDK_BODY_LIMIT) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const text = decodeUtf8(Buffer.concat(chunks));
  if (!text.ok) return undefined;
  try {
    return { parsedBody: JSON.parse(text.value) as unknown };
  } catch {
    return undefined;
  }
}

/** Before any message runs: the per-POST message cap (and no arrays where the revision forbids them), then the budgets. */
async function limitMcpPost(request: Request, parsed: ParsedMcpBody | undefined, limits: McpLimits): Promise<{ refusal: Response } | { parsed: ParsedMcpBody | undefined }> {
  const body = parsed ?? (await readMcpBody(request));
  const refusal =
    (body ? batchRefusal(body.parsedBody, request.headers.get("mcp-protocol-version")) : null) ??
    chargeJsonRpcPost(limits.budget, limits.callerKey, body?.parsedBody, limits.extraBudgetOf);
  return refusal ? { refusal } : { parsed: body };
}

/**
 * Handles a POST to an MCP endpoint, refusing DNS-rebinding attempts first, then POSTs over the message cap or
 * their caller's budget. Authorization headers are ignored: these servers are anonymous.
 */
export async function serveMcp(request: Request, buildServer: () => McpServer, parsed?: ParsedMcpBody, limits?: McpLimits): Promise<Response> {
  const refusal = rejectDnsRebinding(request);
  if (refusal) return refusal;
  if (limits) {
    const limited = await limitMcpPost(request, parsed, limits);
    if ("refusal" in limited) return limited.refusal;
    parsed = limited.parsed;
  }
  const server = buildServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // Route files hand the SDK the body unread; a copy is kept to tell an empty batch from notifications (below).
  const copy = parsed === undefined && request.method === "POST" && request.body !== null ? request.clone() : undefined;
  try {
    await server.connect(transport);
    let response = await transport.handleRequest(request, parsed);
    // The SDK answers 202 to a POST without requests, an empty batch `[]` included; JSON-RPC 2.0 §6 makes
    // that an Invalid Request. Only a 202 is checked, so no other request pays for it.
    if (response.status === 202 && isEmptyBatch(parsed !== undefined ? parsed.parsedBody : await bodyOf(copy))) response = emptyBatchResponse();
    // The SDK builds its responses with `new Response`, whose headers can be set in place.
    response.headers.set("Access-Control-Allow-Origin", "*");
    response.headers.set("Cache-Control", "no-store");
    return response;
  } catch (error) {
    return failureResponse(error);
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

/** A failure outside any tool (tools answer their own failures as tool errors): a JSON-RPC error in our own words. */
function failureResponse(error: unknown): Response {
  const headers = { "Content-Type": "application/json", "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" };
  if (isDatabaseUnavailable(error)) {
    const failure = temporarilyUnavailableRpcError();
    return new Response(JSON.stringify({ jsonrpc: "2.0", error: failure.error, id: null }), { status: failure.status, headers: { ...headers, ...failure.headers } });
  }
  const e = error as { name?: string; message?: string } | null;
  console.error(`[agent-gate] mcp request failed: ${e?.name ?? "error"}: ${String(e?.message ?? error).replace(/\s+/g, " ").slice(0, 300)}`);
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: INTERNAL_RPC_ERROR, id: null }), { status: 500, headers });
}

function isEmptyBatch(body: unknown): boolean {
  return Array.isArray(body) && body.length === 0;
}

async function bodyOf(request: Request | undefined): Promise<unknown> {
  if (request === undefined) return undefined;
  try {
    return JSON.parse(await request.text()) as unknown;
  } catch {
    return undefined;
  }
}

/** JSON-RPC 2.0 §6: "an empty Array" is answered with one Invalid Request error (HTTP 400, as the SDK's other -32600s). */
function emptyBatchResponse(): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: an empty batch holds no message." }, id: null }), {
    status: 400,
    headers: { "Content-Type": "application/json" },
  });
}

/** GET on a stateless JSON-response MCP endpoint: no SSE stream is offered (Streamable HTTP allows 405). */
export function mcpGetNotAllowed(): Response {
  return jsonRpcTransportError(405, "Method not allowed: this stateless server offers no SSE stream; POST JSON-RPC messages.", { Allow: "POST", "Access-Control-Allow-Origin": "*" });
}
