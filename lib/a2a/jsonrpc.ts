// POST /a2a: JSON-RPC 2.0, A2A 1.0 and 0.3.0 at the same URL. The A2A-Version header picks the generation (version.ts:
// absent or empty is 0.3). The envelope, the method and its params are checked here (0.3 below, 1.0 in v1.ts), so bad
// input gets the right JSON-RPC code, never a 500; the methods then run through the A2A SDK: its DefaultRequestHandler
// with a database task store, behind its JsonRpcTransportHandler (1.0) or its v0.3 compatibility layer's
// LegacyJsonRpcTransportHandler (0.3), which translates 0.3 requests and answers. These are built once per process; each call's own state rides in its call
// context (call.ts).
// Every answer is a JSON-RPC response in our own words: an unreachable database is -32011 with HTTP 503 and
// Retry-After, a budget or the per-address limit on message/send and SendMessage -32010 with 429, anything
// unexpected -32603 (logged).
import { publicCaller } from "@/lib/agent-identity";
import { taskStateToJSON } from "@a2a-js/sdk";
import { isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { DefaultRequestHandler, JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import { z } from "zod";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { jsonReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { callerKey } from "@/lib/http/client-ip";
import { errorLog } from "@/lib/observability/log";
import { INTERNAL_RPC_ERROR, rateLimitedRpcError, temporarilyUnavailableRpcError, type JsonRpcServerError } from "@/lib/http/errors";
import { budgetRule, type RateLimitRule } from "@/lib/rate-limit";
import { chargeCaller, type BudgetCharge, type ChargedCaller } from "@/lib/rate-limit/charge";
import { mapMaybe, type MaybePromise } from "@/lib/shared-state";
import { clip, describePath, findStringWhere, isAcceptableText, text as boundaryText } from "@/lib/schemas/text";
import { toolBudgetOf } from "@/lib/tools";
import { A2aCallContext, CallTaskStore, type A2aCall } from "./call";
import { sdkAgentCard } from "./card";
import { countAndWrite, writeCommitted } from "./commit";
import { CommunityToolExecutor } from "./executor";
import { readInvocation, readInvocationParts, v1WireParts, type Invocation } from "./invocation";
import { DbTaskStore, terminalStateName } from "./task-store";
import { parseA2aV1Request, v1Error, versionNotSupported, type A2aRpcError, type JsonRpcId, type ParsedA2aV1Request } from "./v1";
import { A2A_VERSION_HEADER, negotiateA2aVersion, type A2aVersion } from "./version";
import { boundedString, envelopeId, JSONRPC_ERRORS, metadataSchema, readEnvelope, sendConfigurationFields } from "./wire";
import { A2A_BODY_LIMIT } from "./limits";

export { A2A_BODY_LIMIT };

/**
 * Each message/send stores a task (kept 24 hours), so anonymous callers are bounded per address like the other
 * anonymous writes: 300 calls per 10 minutes (at most 43,200 stored tasks a day from one address). Over the limit
 * the answer is JSON-RPC -32010 with HTTP 429 and Retry-After, and nothing is stored. tasks/get and tasks/cancel
 * store no new row and are not counted.
 */
export const A2A_MESSAGE_SEND_RATE_LIMIT: RateLimitRule = budgetRule("a2aMessageSend");

export { JSONRPC_ERRORS };

const partSchema = z.discriminatedUnion("kind", [
  z.looseObject({ kind: z.literal("text"), text: boundaryText().max(10_000), metadata: metadataSchema.optional() }),
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
        ...sendConfigurationFields,
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

const A2A_HEADERS = { "cache-control": "no-store", "access-control-allow-origin": "*" } as const;

function rpcError(id: JsonRpcId, error: A2aRpcError, status = 200, headers: Record<string, string> = {}): ApiReply {
  return jsonReply({ jsonrpc: "2.0", id, error }, { ...headers, ...A2A_HEADERS }, status);
}

function rpcServerError(id: JsonRpcId, failure: JsonRpcServerError): ApiReply {
  return rpcError(id, failure.error, failure.status, failure.headers);
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "params"}: ${issue.message}`)
    .join("; ");
}

/** The outcome of checking an A2A 0.3 request body before any method runs. */
export type ParsedA2aRequest =
  { ok: true; id: JsonRpcId; method: "message/send" | "tasks/get" | "tasks/cancel"; params: Record<string, unknown> } | { ok: false; id: JsonRpcId; error: A2aRpcError };

/** Pure: parses and checks an A2A 0.3 JSON-RPC body (exported for property tests). */
export function parseA2aRequest(text: string): ParsedA2aRequest {
  const envelope = readEnvelope(text);
  if (!envelope.ok) return envelope;
  const { id, method, params } = envelope;
  // Own keys only: a method such as "toString" or "constructor" must not find Object.prototype's members.
  const unsupported = Object.hasOwn(UNSUPPORTED, method) ? UNSUPPORTED[method] : undefined;
  if (unsupported) return { ok: false, id, error: unsupported };
  const schema = Object.hasOwn(PARAMS, method) ? PARAMS[method] : undefined;
  if (!schema) {
    // Without A2A-Version a request speaks 0.3, where 1.0's method names do not exist: say how to reach them.
    const hint = isV1JsonRpcMethod(method) ? ` (${method} is an A2A 1.0 method: send the header A2A-Version: 1.0)` : "";
    return { ok: false, id, error: { code: JSONRPC_ERRORS.methodNotFound, message: `Method not found: ${clip(method, 100)}${hint}` } };
  }
  const checked = schema.safeParse(params);
  if (!checked.success) return { ok: false, id, error: { code: JSONRPC_ERRORS.invalidParams, message: `Invalid params: ${issuesOf(checked.error)}` } };
  // Data parts and metadata are free-form JSON: the text rule is checked on every string they hold.
  // Scanned as sent, not as zod copied it: a copy drops a "__proto__" member, and its string with it.
  const unacceptable = findStringWhere(params, (s) => !isAcceptableText(s));
  if (unacceptable) {
    return {
      ok: false,
      id,
      error: { code: JSONRPC_ERRORS.invalidParams, message: `Invalid params: ${describePath(unacceptable)}: must be well-formed Unicode without NUL characters` },
    };
  }
  return { ok: true, id, method: method as "message/send" | "tasks/get" | "tasks/cancel", params: checked.data as Record<string, unknown> };
}

/** A checked request of either generation. */
export type ParsedCall = (ParsedA2aRequest & { version: "0.3" }) | (ParsedA2aV1Request & { version: "1.0" });

/** The skill a message/send or SendMessage asks for; undefined for the other methods. */
function invocationOf(parsed: ParsedCall): Invocation | undefined {
  if (!parsed.ok) return undefined;
  if (parsed.version === "0.3") return parsed.method === "message/send" ? readInvocation(parsed.params["message"]) : undefined;
  return parsed.method === "SendMessage" ? readInvocationParts(v1WireParts(parsed.params["message"])) : undefined;
}

/**
 * Every POST spends one unit of the caller's a2a budget (A2A takes one message per POST: an array, of any
 * length, is answered -32600 and nothing runs), and a message/send or SendMessage of a lookup skill one of the
 * lookups budget. The 429 answer (-32010, Retry-After) when refused, else null; nothing runs after a refusal.
 */
function chargeA2aPost(caller: ChargedCaller, id: JsonRpcId, invocation: Invocation | undefined, clock: Clock): MaybePromise<{ limited: ApiReply | null; key: string }> {
  const extra = invocation?.ok ? toolBudgetOf(invocation.tool.name) : undefined;
  const chargesFor = (key: string): BudgetCharge[] =>
    extra
      ? [
          { budget: "a2a", key, cost: 1 },
          { budget: extra, key, cost: 1 },
        ]
      : [{ budget: "a2a", key, cost: 1 }];
  return mapMaybe(chargeCaller(caller, chargesFor, clock), ({ refused, key }) => ({
    limited: refused ? rpcServerError(id, rateLimitedRpcError(refused.retryAfterSeconds)) : null,
    key,
  }));
}

interface A2aTransports {
  readonly v1: JsonRpcTransportHandler;
  readonly legacy: LegacyJsonRpcTransportHandler;
}

let built: { clock: Clock; card: ReturnType<typeof sdkAgentCard>; transports: A2aTransports } | undefined;

/**
 * The SDK's request handler behind both transports, built once per process (again only if the clock or the card
 * changes, as tests do), as the SDK's own servers build it: one per message cost a handler, an event-bus
 * manager and its maps, and two transports for every message.
 */
function a2aTransports(clock: Clock): A2aTransports {
  const card = sdkAgentCard();
  if (built?.clock !== clock || built.card !== card) {
    // New tasks and contexts keep the SDK's random UUIDs (crypto.randomUUID): it offers no id generator (a2a-python
    // has task_id_generator and context_id_generator), and replacing its private context builder is not ours to do.
    const handler = new DefaultRequestHandler(card, new CallTaskStore(), new CommunityToolExecutor(clock));
    built = { clock, card, transports: { v1: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) } };
  }
  return built.transports;
}

/** Checks a body under the version its A2A-Version header names (-32009 for a version this agent does not speak). */
function parseCall(text: string, versionHeader: string | null): ParsedCall {
  const negotiated = negotiateA2aVersion(versionHeader);
  if (!negotiated.ok) {
    let id: JsonRpcId = null;
    try {
      id = envelopeId(JSON.parse(text));
    } catch {
      // not JSON: the version is still the first thing wrong with this request
    }
    return { version: "1.0", ok: false, id, error: versionNotSupported(negotiated.requested) };
  }
  return negotiated.version === "1.0" ? { version: "1.0", ...parseA2aV1Request(text) } : { version: "0.3", ...parseA2aRequest(text) };
}

/** Handles POST /a2a; never throws: every failure is a JSON-RPC error in our own words. */
export function handleA2aRequest(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  let id: JsonRpcId = null;
  return answerA2aRequest(request, clock, (parsedId) => (id = parsedId)).catch((error: unknown) => {
    if (isDatabaseUnavailable(error)) return rpcServerError(id, temporarilyUnavailableRpcError());
    errorLog(error, "a2a request");
    return rpcError(id, INTERNAL_RPC_ERROR);
  });
}

/** The params the SDK runs: skills finish within the request, so every send is answered with the finished task. */
export function paramsToRun(parsed: ParsedCall & { ok: true }): Record<string, unknown> {
  const params = parsed.params;
  const isSend = parsed.method === "message/send" || parsed.method === "SendMessage";
  if (!isSend) return params;
  const configuration = params["configuration"];
  const base = typeof configuration === "object" && configuration !== null ? configuration : {};
  return { ...params, configuration: { ...base, ...(parsed.version === "0.3" ? { blocking: true } : { returnImmediately: false }) } };
}

/** The task a message/send or SendMessage is sent to, if it names one. */
function messageTaskId(parsed: ParsedCall & { ok: true }): string | undefined {
  if (parsed.method !== "message/send" && parsed.method !== "SendMessage") return undefined;
  const message = parsed.params["message"] as { taskId?: unknown };
  return typeof message.taskId === "string" && message.taskId !== "" ? message.taskId : undefined;
}

/**
 * The contextId a send's message chose itself for a new task (none names a task): that context is its
 * caller's alone (task-store.ts). A message to a task keeps the task's context, whoever made it.
 */
function clientChosenContextId(parsed: ParsedCall & { ok: true }): string | undefined {
  if (parsed.method !== "message/send" && parsed.method !== "SendMessage") return undefined;
  const message = parsed.params["message"] as { taskId?: unknown; contextId?: unknown };
  if (typeof message.taskId === "string" && message.taskId !== "") return undefined;
  return typeof message.contextId === "string" && message.contextId !== "" ? message.contextId : undefined;
}

/**
 * A message to a finished task is refused before anything runs, in each generation's words: 0.3 answers
 * -32600 as it always did, 1.0 UnsupportedOperation (-32004). (The SDK would name the 1.0 state by its number.)
 */
async function finishedTaskRefusal(version: A2aVersion, taskId: string, store: DbTaskStore): Promise<A2aRpcError | undefined> {
  const task = await store.load(taskId);
  const finished = task ? terminalStateName(task) : undefined;
  if (!task?.status || !finished) return undefined;
  if (version === "0.3") return { code: JSONRPC_ERRORS.invalidRequest, message: `Task ${task.id} is in a terminal state (${finished}) and cannot be modified.` };
  return v1Error(new UnsupportedOperationError({ message: `Task ${task.id} is in a terminal state (${taskStateToJSON(task.status.state)}) and cannot be modified.` }));
}

/**
 * Whether a send's per-address count can be taken together with its task write, after the skill ran (one
 * commit batch item per message instead of two, ./commit.ts): the message starts a new task (no taskId, so no answer depends on a
 * stored task) and its skill only reads. The answers are the same either way (over the limit -32010 and
 * nothing stored: the count and the write are one step, and a refused count skips the write); a skill that
 * writes (register_agent) or a message to an existing task is still counted before anything runs.
 */
function countsWithTheTask(invocation: Invocation, taskId: string | undefined): boolean {
  if (invocation.ok && !invocation.tool.annotations.readOnlyHint) return false;
  return taskId === undefined;
}

async function answerA2aRequest(request: ApiRequest, clock: Clock, onId: (id: JsonRpcId) => void): Promise<ApiReply> {
  const text = await request.readBody(A2A_BODY_LIMIT);
  if (!text.ok) {
    const status = text.reason === "too_large" ? 413 : 200;
    const code = text.reason === "too_large" ? JSONRPC_ERRORS.invalidRequest : JSONRPC_ERRORS.parseError;
    return rpcError(null, { code, message: text.message }, status);
  }
  const parsed = parseCall(text.value, request.headers.get(A2A_VERSION_HEADER));
  const ip = callerKey(request.headers);
  // Budgets count a verified agent under its origin (issue 44); its tasks stay scoped to its address.
  const found = publicCaller(request, ip, clock);
  const invocation = invocationOf(parsed);
  const charged = chargeA2aPost(found instanceof Promise ? await found : found, parsed.id, invocation, clock);
  const { limited, key: budgetKey } = charged instanceof Promise ? await charged : charged;
  if (limited) return limited;
  if (!parsed.ok) return rpcError(parsed.id, parsed.error);
  onId(parsed.id);
  const taskId = messageTaskId(parsed);
  const countedWithTheTask = invocation !== undefined && countsWithTheTask(invocation, taskId);
  if (invocation && !countedWithTheTask) {
    const limit = await countAndWrite(A2A_MESSAGE_SEND_RATE_LIMIT, budgetKey, [], clock);
    if (!limit.allowed) return rpcServerError(parsed.id, rateLimitedRpcError(limit.resetSeconds));
  }

  const store = new DbTaskStore(clock, ip, clientChosenContextId(parsed));
  // Most messages start a new task: nothing to look up, and no promise to wait for.
  const refusal = taskId === undefined ? undefined : await finishedTaskRefusal(parsed.version, taskId, store);
  if (refusal) return rpcError(parsed.id, refusal);
  const call: A2aCall = { clientIp: ip, tasks: store };
  const context = new A2aCallContext(parsed.version, call);
  const body = { jsonrpc: "2.0", id: parsed.id, method: parsed.method, params: paramsToRun(parsed) };
  const transports = a2aTransports(clock);
  const result = parsed.version === "1.0" ? await transports.v1.handle(body, context) : await transports.legacy.handle(body, context);
  const failure = store.storageError ?? call.databaseError;
  if (failure) throw failure;
  if (countedWithTheTask) {
    const limit = await countAndWrite(A2A_MESSAGE_SEND_RATE_LIMIT, ip, store.takeWrites(), clock);
    if (!limit.allowed) return rpcServerError(parsed.id, rateLimitedRpcError(limit.resetSeconds));
  } else await writeCommitted(store.takeWrites());
  if (Symbol.asyncIterator in result) {
    // Unreachable: streaming methods were answered above.
    return rpcError(parsed.id, { code: JSONRPC_ERRORS.unsupportedOperation, message: "Unsupported operation: streaming." });
  }
  const error = result.error as A2aRpcError | undefined;
  if (error && (error.code === JSONRPC_ERRORS.internalError || typeof error.code !== "number")) {
    // Never pass an internal message through (it could name the database or a file path).
    errorLog(error, `a2a ${parsed.method} inside the A2A SDK`);
    return rpcError(parsed.id, INTERNAL_RPC_ERROR);
  }
  return jsonReply(result, A2A_HEADERS);
}
