// Serves one MCP server over Streamable HTTP, statelessly, with the v2 SDK (@modelcontextprotocol/server):
// a fresh McpServer per request, so any instance answers any request. Both generations share one URL:
// - 2026-07-28 (a request carrying the per-request `_meta` envelope): the SDK's modern entry
//   (createMcpHandler, 2025 traffic refused there): server/discover, the SEP-2243 header checks, resultType
//   and the cache fields;
// - 2025-03-26 … 2025-11-25 (no envelope): the stateless transport (sessionIdGenerator undefined, JSON
//   responses) exactly as before.
import { AsyncLocalStorage } from "node:async_hooks";
import {
  classifyInboundRequest,
  createMcpHandler,
  isJSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  specTypeSchemas,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type CacheHint,
  type McpServer,
  type ServerOptions,
  type SpecTypeName,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { INTERNAL_RPC_ERROR, jsonRpcErrorReply, jsonRpcTransportErrorReply, temporarilyUnavailableRpcError } from "@/lib/http/errors";
import { errorLog } from "@/lib/observability/log";
import type { ChargedCaller, SharedBudgetName } from "@/lib/rate-limit/charge";
import { batchRefusal, chargeJsonRpcPost, refusalId, type ExtraBudgetOf } from "@/lib/rate-limit/json-rpc";
import { rejectDnsRebinding } from "./rebinding";
import { tracingOn, withCallerTrace } from "@/lib/tracing";
import { MCP_BODY_LIMIT } from "./limits";

export { MCP_BODY_LIMIT };

// Unless given one, the SDK builds a new Ajv instance (its validator for elicitation answers) in every Server
// it constructs: about a quarter of a stateless tools/call (bench/README.md). One instance serves them all;
// it keeps no per-request state.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * What our servers list (tools, documents) changes only with a deployment and is the same for every caller:
 * 2026-07-28 answers let shared caches keep lists, reads and server/discover for five minutes (`ttlMs`,
 * `cacheScope`). 2025 answers carry no cache fields.
 */
export const DEPLOYMENT_CACHE_HINT: CacheHint = { ttlMs: 300_000, cacheScope: "public" };

/**
 * Options for a per-request McpServer: its instructions, the shared JSON Schema validator, and the cache hints of
 * what it lists. Built once per server kind and shared by every request's server (the SDK only reads them), hence frozen.
 */
export function statelessServerOptions(instructions: string, cacheable: readonly CacheableMethod[] = ["tools/list", "server/discover"]): ServerOptions {
  const cacheHints = deepFreeze(Object.fromEntries(cacheable.map((method) => [method, { ...DEPLOYMENT_CACHE_HINT }])));
  return Object.freeze({ instructions, jsonSchemaValidator, cacheHints });
}

/** The operations whose 2026-07-28 results carry cache fields. */
type CacheableMethod = "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "resources/read" | "server/discover";

/** Deep-frozen, so that an SDK that wrote into a shared JSON Schema would fail loudly rather than leak state between requests. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

const jsonSchemaViews = new WeakMap<object, object>();

/**
 * The same schema, converting itself to JSON Schema once per process instead of once per request. The SDK
 * converts a tool's zod schemas in every fresh per-request server (tools/list, and tools/call on 2026-07-28
 * to scan for x-mcp-header parameters): 40 % of a stateless tools/list was zod's JSON Schema conversion.
 * Validation is zod's own, unchanged; the JSON is what zod gives, computed once.
 */
export function withCachedJsonSchema<S extends StandardSchemaWithJSON>(schema: S): S {
  const known = jsonSchemaViews.get(schema);
  if (known) return known as S;
  const standard = schema["~standard"];
  const memo = new Map<string, Record<string, unknown>>();
  const view =
    (io: "input" | "output") =>
    (options: StandardJSONSchemaOptions): Record<string, unknown> => {
      const key = `${io} ${options.target}`;
      let converted = memo.get(key);
      if (!converted) {
        converted = deepFreeze(standard.jsonSchema[io](options));
        memo.set(key, converted);
      }
      return converted;
    };
  const wrapped = {
    "~standard": {
      version: standard.version,
      vendor: standard.vendor,
      validate: standard.validate,
      types: standard.types,
      jsonSchema: { input: view("input"), output: view("output") },
    },
  };
  jsonSchemaViews.set(schema, wrapped);
  return wrapped as unknown as S;
}

type StandardJSONSchemaOptions = Parameters<StandardSchemaWithJSON["~standard"]["jsonSchema"]["input"]>[0];

/** The stateless revision served through the SDK's modern entry. */
export const MODERN_MCP_REVISION = "2026-07-28";

/** Every MCP revision both endpoints serve, newest first (server cards and catalogs list them). */
export const SERVED_MCP_REVISIONS: readonly string[] = [MODERN_MCP_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The budget a POST to an MCP endpoint spends (lib/rate-limit/budgets.ts), per message, by this caller. */
export interface McpLimits {
  budget: SharedBudgetName;
  /** Who the request is counted as (lib/agent-identity publicCaller: the address's key, or a verified agent's). */
  caller: ChargedCaller;
  /** The extra budget of a message (a tools/call of a lookup tool). */
  extraBudgetOf?: ExtraBudgetOf;
}

/**
 * What one request can reach, handed to the per-request server's builder: the tool a single `tools/call`
 * names. A server built for it may register that tool alone (the answer is the same, the others are never
 * looked at); every other message, and a call naming no known tool, gets the whole server.
 */
export interface McpReach {
  toolName?: string;
}

/** Builds the per-request McpServer (see McpReach). */
export type McpServerBuilder = (reach: McpReach) => McpServer;

/** The tool a single, well-formed-enough tools/call names (nothing for a batch, another method or no string name). */
export function reachOf(parsed: unknown): McpReach {
  if (!isJsonObject(parsed) || parsed["method"] !== "tools/call") return {};
  const params = parsed["params"];
  const name = isJsonObject(params) ? params["name"] : undefined;
  return typeof name === "string" ? { toolName: name } : {};
}

/** The request headers the SDK's transport reads (it is handed a Request built from these). */
const TRANSPORT_HEADERS = ["accept", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id", "mcp-method", "mcp-name"] as const;

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

/** The per-request server of each request on the 2026-07-28 path (the one modern entry below builds it from the request). */
const modernFactories = new WeakMap<Request, () => McpServer>();

/** The first failure the modern entry reports while it serves a request (it answers a bare 500; we answer in our own words). */
const modernFailure = new AsyncLocalStorage<{ error?: unknown }>();

/**
 * The SDK's 2026-07-28 entry, built once: it validates the envelope and the standard headers (-32020, -32022,
 * 404 + -32601…), answers server/discover, and builds a fresh server per request. 2025-era traffic never
 * reaches it (serveMcp routes that to the stateless transport), hence `legacy: "reject"`.
 */
const modernEntry = createMcpHandler(
  ({ requestInfo }) => {
    const build = requestInfo ? modernFactories.get(requestInfo) : undefined;
    if (!build) throw new Error("no MCP server registered for this request");
    return withoutListChanges(build());
  },
  {
    legacy: "reject",
    onerror: (error) => {
      const slot = modernFailure.getStore();
      if (slot && slot.error === undefined) slot.error = error;
    },
  },
);

/**
 * A stateless server never sends a list-change notification (nothing it lists changes between deployments),
 * so its 2026-07-28 capabilities say so: subscriptions/listen is then acknowledged with nothing honored and the
 * stream ends at once (an open stream could not be answered as one reply, nor kept on any one instance).
 * 2025 answers keep the capabilities they always had.
 */
function withoutListChanges(server: McpServer): McpServer {
  const { tools, resources, prompts } = server.server.getCapabilities();
  server.server.registerCapabilities({
    ...(tools && { tools: { ...tools, listChanged: false } }),
    ...(resources && { resources: { ...resources, listChanged: false, subscribe: false } }),
    ...(prompts && { prompts: { ...prompts, listChanged: false } }),
  });
  return server;
}

/**
 * Handles a POST to an MCP endpoint (the one adapter between ApiRequest/ApiReply and the SDK): DNS-rebinding
 * attempts are refused first, then POSTs over the message cap or their caller's budget; the body is read and
 * parsed once and handed to the SDK, to its 2026-07-28 entry when the message carries the per-request
 * envelope, else to the stateless 2025 transport. Authorization headers are ignored: these servers are anonymous.
 */
export async function serveMcp(request: ApiRequest, buildServer: McpServerBuilder, limits?: McpLimits): Promise<ApiReply> {
  const refusal = rejectDnsRebinding(request.headers);
  if (refusal) return refusal;
  const body = await readMcpBody(request);
  if ("status" in body) return body;
  if (limits && "parsed" in body) {
    const refused = batchRefusal(body.parsed, request.headers.get("mcp-protocol-version"));
    if (refused) return refused;
    // The shared store's answer is a promise (postgres, redis); the memory store's is here already, and costs no turn.
    const charged = chargeJsonRpcPost(limits.budget, limits.caller, body.parsed, limits.extraBudgetOf);
    const limited = charged instanceof Promise ? await charged : charged;
    if (limited) return limited;
  } else if (limits) {
    const charged = chargeJsonRpcPost(limits.budget, limits.caller, undefined, limits.extraBudgetOf);
    const limited = charged instanceof Promise ? await charged : charged;
    if (limited) return limited;
  }
  // JSON-RPC 2.0 §6: an empty batch is one Invalid Request (whatever the revision; nothing runs).
  if ("parsed" in body && Array.isArray(body.parsed) && body.parsed.length === 0) {
    return jsonRpcErrorReply(null, { code: -32600, message: "Invalid Request: an empty batch holds no message." }, 400);
  }
  const webRequest = transportRequest(request, body);
  const reach = "parsed" in body ? reachOf(body.parsed) : {};
  const build = () => buildServer(reach);
  if ("parsed" in body && speaksModern(request, body.parsed)) return serveModern(webRequest, body.parsed, build);
  return serveLegacy(webRequest, body, build);
}

/**
 * Whether the SDK's 2026-07-28 entry owns this message: it carries the per-request envelope (or a modern
 * MCP-Protocol-Version header), including the envelope and header mismatches that entry answers (-32602,
 * -32020, -32022). A body that is no JSON-RPC message at all stays with the 2025 transport, which answers it as
 * it always has.
 */
function speaksModern(request: ApiRequest, parsed: unknown): boolean {
  if (isEnvelopedRequest(parsed)) return true;
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: request.headers.get("mcp-protocol-version") ?? undefined,
    mcpMethodHeader: request.headers.get("mcp-method") ?? undefined,
    mcpNameHeader: request.headers.get("mcp-name") ?? undefined,
    body: parsed,
  });
  if (outcome.kind === "reject") return outcome.rung !== "jsonrpc-shape" || outcome.cell === "batch-with-modern-element";
  return outcome.kind === "modern";
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The common 2026-07-28 message, decided without the full classification (about 3 % of a modern tools/call's
 * CPU went to classifying it here, before the SDK's entry classifies it again): a JSON-RPC request, not initialize, with
 * neither result nor error, whose params carry the envelope's protocol-version key. classifyInboundRequest
 * answers every such body "modern" or with an envelope or header rejection, both of which the modern entry
 * owns, so the route is the same.
 */
export function isEnvelopedRequest(parsed: unknown): boolean {
  if (!isJsonObject(parsed) || parsed["method"] === "initialize" || "result" in parsed || "error" in parsed) return false;
  const params = parsed["params"];
  const meta = isJsonObject(params) ? params["_meta"] : undefined;
  return isJsonObject(meta) && PROTOCOL_VERSION_META_KEY in meta && isJSONRPCRequest(parsed);
}

/** The `traceparent` and `tracestate` of a 2026-07-28 message's `params._meta` (W3C Trace Context), if any. */
function callerTraceOf(parsed: unknown): [traceparent: unknown, tracestate: unknown] {
  const params = isJsonObject(parsed) ? parsed["params"] : undefined;
  const meta = isJsonObject(params) ? params["_meta"] : undefined;
  return isJsonObject(meta) ? [meta["traceparent"], meta["tracestate"]] : [undefined, undefined];
}

/** A 2026-07-28 request: the SDK's modern entry answers it (statelessly, JSON unless a tool streams). */
async function serveModern(webRequest: Request, parsed: unknown, buildServer: () => McpServer): Promise<ApiReply> {
  modernFactories.set(webRequest, buildServer);
  const slot: { error?: unknown } = {};
  try {
    // The caller's trace context rides in the envelope (params._meta.traceparent): the tool call continues it.
    const response = await (tracingOn()
      ? withCallerTrace(...callerTraceOf(parsed), () => modernFailure.run(slot, () => modernEntry.fetch(webRequest, { parsedBody: parsed })))
      : modernFailure.run(slot, () => modernEntry.fetch(webRequest, { parsedBody: parsed })));
    if (response.status >= 500) return failureReply(slot.error ?? new Error(`modern MCP entry answered ${response.status}`), refusalId(parsed));
    return invalidParamsOfSpecSchema(await replyOf(response), parsed);
  } catch (error) {
    return failureReply(error, refusalId(parsed));
  }
}

/** The SDK's public schema of each spec request a client sends (its per-revision wire schemas are not public). */
const CLIENT_REQUEST_SCHEMAS: Readonly<Partial<Record<string, SpecTypeName>>> = {
  "completion/complete": "CompleteRequest",
  "logging/setLevel": "SetLevelRequest",
  ping: "PingRequest",
  "prompts/get": "GetPromptRequest",
  "prompts/list": "ListPromptsRequest",
  "resources/list": "ListResourcesRequest",
  "resources/read": "ReadResourceRequest",
  "resources/subscribe": "SubscribeRequest",
  "resources/templates/list": "ListResourceTemplatesRequest",
  "resources/unsubscribe": "UnsubscribeRequest",
  "tools/call": "CallToolRequest",
  "tools/list": "ListToolsRequest",
};

/**
 * The v2 SDK answers a spec request whose params have the wrong shape (resources/read without a string uri,
 * completion/complete with a number…) with -32603 Internal error, and gives no structured account of why. The
 * 2026-07-28 answer is -32602 Invalid params with the facts in one line, each an issue (path and message) of the
 * SDK's public schema of that request (specTypeSchemas); looked at only when the SDK answered -32603. (2025
 * answers keep what the v1 SDK always sent, which was the same -32603.)
 */
function invalidParamsOfSpecSchema(reply: ApiReply, parsed: unknown): ApiReply {
  if (typeof reply.body !== "string" || !reply.body.includes(`"code":${ProtocolErrorCode.InternalError}`)) return reply;
  const schema = isJsonObject(parsed) && typeof parsed["method"] === "string" ? CLIENT_REQUEST_SCHEMAS[parsed["method"]] : undefined;
  if (schema === undefined) return reply;
  const answer = JSON.parse(reply.body) as { error?: { code?: unknown } };
  if (answer.error?.code !== ProtocolErrorCode.InternalError) return reply;
  const issues = specTypeSchemas[schema]["~standard"].validate(parsed).issues?.map((issue) => ({ path: issue.path?.map(pathKey) ?? [], message: issue.message }));
  if (!issues || issues.length === 0 || !issues.every((issue) => issue.path[0] === "params")) return reply;
  const facts = issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  return { ...reply, body: JSON.stringify({ ...answer, error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${facts.slice(0, 500)}` } }) };
}

function pathKey(segment: PropertyKey | { readonly key: PropertyKey }): string {
  return String(typeof segment === "object" ? segment.key : segment);
}

/** A 2025-revision request (or a body that is no JSON message): the stateless transport, as before the v2 SDK. */
async function serveLegacy(webRequest: Request, body: McpBody, buildServer: () => McpServer): Promise<ApiReply> {
  const server = buildServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(webRequest, "parsed" in body ? { parsedBody: body.parsed } : undefined);
    return legacyResourceNotFound(await replyOf(response), body);
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

/** MCP 2025-03-26 … 2025-11-25 (server/resources, "Error Handling"): a resource that does not exist is -32002. */
export const LEGACY_RESOURCE_NOT_FOUND = -32002;

/**
 * The v2 SDK answers an unknown resource with -32602 and data exactly `{ uri }` on every revision (the
 * 2026-07-28 code); a 2025 client is owed the code of its own revision. Only a single resources/read is looked at.
 */
function legacyResourceNotFound(reply: ApiReply, body: McpBody): ApiReply {
  if (reply.status !== 200 || typeof reply.body !== "string" || !("parsed" in body)) return reply;
  const message = body.parsed as { method?: unknown } | null;
  if (typeof message !== "object" || message === null || Array.isArray(message) || message.method !== "resources/read") return reply;
  const answer = JSON.parse(reply.body) as { error?: { code?: unknown; data?: unknown } };
  const data = answer.error?.data as Record<string, unknown> | undefined;
  if (answer.error?.code !== -32602 || typeof data !== "object" || data === null || Object.keys(data).join() !== "uri") return reply;
  return { ...reply, body: JSON.stringify({ ...answer, error: { ...answer.error, code: LEGACY_RESOURCE_NOT_FOUND } }) };
}

/** A failure outside any tool (tools answer their own failures as tool errors): a JSON-RPC error in our own words. */
function failureReply(error: unknown, id: string | number | null = null): ApiReply {
  if (isDatabaseUnavailable(error)) {
    const failure = temporarilyUnavailableRpcError();
    return jsonRpcErrorReply(id, failure.error, failure.status, failure.headers);
  }
  errorLog(error, "mcp request");
  return jsonRpcErrorReply(id, INTERNAL_RPC_ERROR, 500);
}

/** GET on a stateless JSON-response MCP endpoint: no SSE stream is offered (Streamable HTTP allows 405). */
export function mcpGetNotAllowed(): ApiReply {
  return jsonRpcTransportErrorReply(405, "Method not allowed: this stateless server offers no SSE stream; POST JSON-RPC messages.", {
    Allow: "POST",
    "Access-Control-Allow-Origin": "*",
  });
}
