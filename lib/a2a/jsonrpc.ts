// POST /a2a: JSON-RPC 2.0, A2A 0.3.0. The envelope, the method and its params are checked here (so bad
// input gets the right JSON-RPC code, never a 500); message/send, tasks/get and tasks/cancel then run
// through the A2A SDK's JsonRpcTransportHandler and DefaultRequestHandler with a database task store.
import type { JSONRPCError, JSONRPCResponse, Message } from "@a2a-js/sdk";
import { DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, UnauthenticatedUser } from "@a2a-js/sdk/server";
import { z } from "zod";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { readBodyText } from "@/lib/http/body";
import { clientIp } from "@/lib/http/client-ip";
import { jsonRpcRateLimited } from "@/lib/http/errors";
import { chargeBudgets, type BudgetCharge } from "@/lib/rate-limit/memory";
import { toolBudgetOf } from "@/lib/tools";
import { buildAgentCard } from "./card";
import { CommunityToolExecutor } from "./executor";
import { readInvocation } from "./invocation";
import { DbTaskStore } from "./task-store";

export const A2A_BODY_LIMIT = 65_536;

export const JSONRPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotificationNotSupported: -32003,
  unsupportedOperation: -32004,
} as const;

type JsonRpcId = string | number | null;

const idSchema = z.union([z.string().max(256), z.number().int(), z.null()]);

const envelopeSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string().min(1).max(100),
  id: idSchema.optional(),
  params: z.unknown().optional(),
});

const boundedString = z.string().min(1).max(256);
const metadataSchema = z.record(z.string(), z.unknown());

const partSchema = z.discriminatedUnion("kind", [
  z.looseObject({ kind: z.literal("text"), text: z.string().max(10_000), metadata: metadataSchema.optional() }),
  z.looseObject({ kind: z.literal("data"), data: metadataSchema, metadata: metadataSchema.optional() }),
  z.looseObject({ kind: z.literal("file"), file: z.looseObject({}), metadata: metadataSchema.optional() }),
]);

const messageSchema = z.looseObject({
  kind: z.literal("message"),
  role: z.enum(["user", "agent"]),
  messageId: boundedString,
  parts: z.array(partSchema).min(1).max(20),
  taskId: boundedString.optional(),
  contextId: boundedString.optional(),
  referenceTaskIds: z.array(boundedString).max(10).optional(),
  metadata: metadataSchema.optional(),
});

const PARAMS: Record<string, z.ZodType> = {
  "message/send": z.looseObject({
    message: messageSchema,
    configuration: z
      .looseObject({
        acceptedOutputModes: z.array(z.string().max(256)).max(20).optional(),
        historyLength: z.number().int().min(0).optional(),
        blocking: z.boolean().optional(),
      })
      .optional(),
    metadata: metadataSchema.optional(),
  }),
  "tasks/get": z.looseObject({ id: boundedString, historyLength: z.number().int().min(0).optional(), metadata: metadataSchema.optional() }),
  "tasks/cancel": z.looseObject({ id: boundedString, metadata: metadataSchema.optional() }),
};

const UNSUPPORTED: Record<string, { code: number; message: string }> = {
  "message/stream": { code: JSONRPC_ERRORS.unsupportedOperation, message: "Unsupported operation: message/stream (this agent does not stream; use message/send)." },
  "tasks/resubscribe": { code: JSONRPC_ERRORS.unsupportedOperation, message: "Unsupported operation: tasks/resubscribe (this agent does not stream; use tasks/get)." },
  "agent/getAuthenticatedExtendedCard": { code: JSONRPC_ERRORS.unsupportedOperation, message: "Unsupported operation: this agent has no authenticated extended card." },
  "tasks/pushNotificationConfig/set": { code: JSONRPC_ERRORS.pushNotificationNotSupported, message: "Push Notification is not supported" },
  "tasks/pushNotificationConfig/get": { code: JSONRPC_ERRORS.pushNotificationNotSupported, message: "Push Notification is not supported" },
  "tasks/pushNotificationConfig/list": { code: JSONRPC_ERRORS.pushNotificationNotSupported, message: "Push Notification is not supported" },
  "tasks/pushNotificationConfig/delete": { code: JSONRPC_ERRORS.pushNotificationNotSupported, message: "Push Notification is not supported" },
};

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" },
  });
}

function rpcError(id: JsonRpcId, error: JSONRPCError, status = 200): Response {
  return jsonResponse({ jsonrpc: "2.0", id, error }, status);
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "params"}: ${issue.message}`)
    .join("; ");
}

/** The outcome of checking a request body before any method runs. */
export type ParsedA2aRequest =
  | { ok: true; id: JsonRpcId; method: "message/send" | "tasks/get" | "tasks/cancel"; params: Record<string, unknown> }
  | { ok: false; id: JsonRpcId; error: JSONRPCError };

/** Pure: parses and checks a JSON-RPC body (exported for property tests). */
export function parseA2aRequest(text: string): ParsedA2aRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, id: null, error: { code: JSONRPC_ERRORS.parseError, message: "Parse error: the body is not valid JSON." } };
  }
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) {
    const rawId = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)["id"] : undefined;
    const id = idSchema.safeParse(rawId);
    return {
      ok: false,
      id: id.success ? id.data : null,
      error: { code: JSONRPC_ERRORS.invalidRequest, message: 'Invalid Request: send one JSON-RPC 2.0 object {"jsonrpc": "2.0", "id", "method", "params"}.' },
    };
  }
  const { method, params } = envelope.data;
  const id = envelope.data.id ?? null;
  // Own keys only: a method such as "toString" or "constructor" must not find Object.prototype's members.
  const unsupported = Object.hasOwn(UNSUPPORTED, method) ? UNSUPPORTED[method] : undefined;
  if (unsupported) return { ok: false, id, error: unsupported };
  const schema = Object.hasOwn(PARAMS, method) ? PARAMS[method] : undefined;
  if (!schema) return { ok: false, id, error: { code: JSONRPC_ERRORS.methodNotFound, message: `Method not found: ${method.slice(0, 100)}` } };
  const checked = schema.safeParse(params);
  if (!checked.success) return { ok: false, id, error: { code: JSONRPC_ERRORS.invalidParams, message: `Invalid params: ${issuesOf(checked.error)}` } };
  return { ok: true, id, method: method as "message/send" | "tasks/get" | "tasks/cancel", params: checked.data as Record<string, unknown> };
}

/**
 * Every POST spends one unit of the caller's a2a budget (A2A takes one message per POST: an array, of any
 * length, is answered -32600 and nothing runs), and a message/send of a lookup skill one of the lookups budget.
 * The 429 answer (-32010, Retry-After) when refused, else null; nothing runs after a refusal.
 */
function chargeA2aPost(callerKey: string, parsed: ParsedA2aRequest, clock: Clock): Response | null {
  const charges: BudgetCharge[] = [{ budget: "a2a", key: callerKey, cost: 1 }];
  if (parsed.ok && parsed.method === "message/send") {
    const invocation = readInvocation(parsed.params["message"] as Message);
    const extra = invocation.ok ? toolBudgetOf(invocation.tool.name) : undefined;
    if (extra) charges.push({ budget: extra, key: callerKey, cost: 1 });
  }
  const refused = chargeBudgets(charges, clock);
  return refused ? jsonRpcRateLimited(parsed.id, refused.retryAfterSeconds) : null;
}

/** Handles POST /a2a. Throws only when the database is unreachable (the route answers 503). */
export async function handleA2aRequest(request: Request, clock: Clock = systemClock): Promise<Response> {
  const text = await readBodyText(request, A2A_BODY_LIMIT);
  if (!text.ok) {
    const status = text.reason === "too_large" ? 413 : 200;
    const code = text.reason === "too_large" ? JSONRPC_ERRORS.invalidRequest : JSONRPC_ERRORS.parseError;
    return rpcError(null, { code, message: text.message }, status);
  }
  const parsed = parseA2aRequest(text.value);
  const limited = chargeA2aPost(clientIp(request.headers), parsed, clock);
  if (limited) return limited;
  if (!parsed.ok) return rpcError(parsed.id, parsed.error);

  let params = parsed.params;
  // Skills finish within the request, so every message/send is answered with the finished task.
  if (parsed.method === "message/send") {
    const configuration = params["configuration"];
    params = { ...params, configuration: { ...(typeof configuration === "object" && configuration !== null ? configuration : {}), blocking: true } };
  }

  const store = new DbTaskStore(clock);
  const executor = new CommunityToolExecutor({ clock, clientIp: clientIp(request.headers) });
  const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(buildAgentCard(), store, executor));
  const result = await transport.handle({ jsonrpc: "2.0", id: parsed.id, method: parsed.method, params }, new ServerCallContext(undefined, new UnauthenticatedUser()));
  const failure = store.storageError ?? executor.databaseError;
  if (failure) throw failure;
  if (Symbol.asyncIterator in result) {
    // Unreachable: streaming methods were answered above.
    return rpcError(parsed.id, { code: JSONRPC_ERRORS.unsupportedOperation, message: "Unsupported operation: streaming." });
  }
  const response: JSONRPCResponse = result;
  if ("error" in response && response.error.code === JSONRPC_ERRORS.internalError) {
    // Never pass an internal message through (it could name the database or a file path).
    return rpcError(parsed.id, { code: JSONRPC_ERRORS.internalError, message: "Internal error: the agent failed to handle this request." });
  }
  return jsonResponse(response);
}
