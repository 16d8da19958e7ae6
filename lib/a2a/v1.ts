// A2A 1.0 JSON-RPC requests (A2A-Version: 1.0): the envelope, the method and its params are checked here, before
// the SDK reads them, so bad input gets the protocol's own code (errors in 1.0's shape: code, message, and the
// google.rpc.ErrorInfo detail the SDK builds), never a 500. Methods: SendMessage, GetTask, ListTasks, CancelTask.
import { PushNotificationNotSupportedError, RequestMalformedError, toJsonRpcError, UnsupportedOperationError, VersionNotSupportedError } from "@a2a-js/sdk/errors";
import { isLegacyJsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { z } from "zod";
import { clip, describePath, findStringWhere, isAcceptableText, text as boundaryText } from "@/lib/schemas/text";
import { boundedString, JSONRPC_ERRORS, metadataSchema, readEnvelope, sendConfigurationFields, type A2aRpcError, type JsonRpcId } from "./wire";

export type { A2aRpcError, JsonRpcId } from "./wire";

export const V1_METHODS = ["SendMessage", "GetTask", "ListTasks", "CancelTask"] as const;
export type V1Method = (typeof V1_METHODS)[number];

export type ParsedA2aV1Request = { ok: true; id: JsonRpcId; method: V1Method; params: Record<string, unknown> } | { ok: false; id: JsonRpcId; error: A2aRpcError };

/** Proto3 JSON may carry a default (empty) value for an optional id: it means "none". */
const optionalId = boundaryText().max(256).optional();
/** This agent has no tenants: a tenant, when sent, is empty. */
const tenantSchema = z.literal("", { error: "this agent has no tenants; leave tenant out" }).optional();

const partSchema = z
  .looseObject({
    text: boundaryText().max(10_000).optional(),
    raw: boundaryText().max(65_536).optional(),
    url: boundaryText().max(2048).optional(),
    data: z.unknown().optional(),
    metadata: metadataSchema.optional(),
    filename: boundaryText().max(256).optional(),
    mediaType: boundaryText().max(256).optional(),
  })
  .refine((part) => ["text", "raw", "url", "data"].filter((key) => part[key] !== undefined).length === 1, "a part holds exactly one of text, raw, url or data");

const messageSchema = z.looseObject({
  messageId: boundedString,
  role: z.enum(["ROLE_USER", "ROLE_AGENT"]),
  parts: z.array(partSchema).min(1).max(20),
  taskId: optionalId,
  contextId: optionalId,
  referenceTaskIds: z.array(boundedString).max(10).optional(),
  extensions: z.array(boundaryText().max(256)).max(10).optional(),
  metadata: metadataSchema.optional(),
});

const TASK_STATES = [
  "TASK_STATE_UNSPECIFIED",
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;

const isoTimestamp = boundaryText()
  .max(64)
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/, "an RFC 3339 timestamp such as 2026-05-01T08:00:00Z")
  .refine((value) => !Number.isNaN(Date.parse(value)), "an RFC 3339 timestamp such as 2026-05-01T08:00:00Z");

const PARAMS: Record<V1Method, z.ZodType> = {
  SendMessage: z.looseObject({
    tenant: tenantSchema,
    message: messageSchema,
    configuration: z
      .looseObject({
        ...sendConfigurationFields,
        returnImmediately: z.boolean().optional(),
      })
      .optional(),
    metadata: metadataSchema.optional(),
  }),
  GetTask: z.looseObject({ tenant: tenantSchema, id: boundedString, historyLength: z.number().int().min(0).optional() }),
  ListTasks: z.looseObject({
    tenant: tenantSchema,
    contextId: boundedString,
    status: z.enum(TASK_STATES).optional(),
    pageSize: z.number().int().min(1).max(100).optional(),
    pageToken: boundaryText().max(512).optional(),
    historyLength: z.number().int().min(0).optional(),
    statusTimestampAfter: isoTimestamp.optional(),
    includeArtifacts: z.boolean().optional(),
  }),
  CancelTask: z.looseObject({ tenant: tenantSchema, id: boundedString, metadata: metadataSchema.optional() }),
};

/** 1.0 methods this agent does not offer, with the error the specification gives them. */
const UNSUPPORTED: Record<string, () => Error> = {
  SendStreamingMessage: () => new UnsupportedOperationError({ message: "Unsupported operation: SendStreamingMessage (this agent does not stream; use SendMessage)." }),
  SubscribeToTask: () => new UnsupportedOperationError({ message: "Unsupported operation: SubscribeToTask (this agent does not stream; use GetTask)." }),
  GetExtendedAgentCard: () => new UnsupportedOperationError({ message: "Unsupported operation: this agent has no extended agent card." }),
  CreateTaskPushNotificationConfig: () => new PushNotificationNotSupportedError({ message: "Push Notification is not supported" }),
  GetTaskPushNotificationConfig: () => new PushNotificationNotSupportedError({ message: "Push Notification is not supported" }),
  ListTaskPushNotificationConfigs: () => new PushNotificationNotSupportedError({ message: "Push Notification is not supported" }),
  DeleteTaskPushNotificationConfig: () => new PushNotificationNotSupportedError({ message: "Push Notification is not supported" }),
};

/** The 1.0 error object of an SDK error (its code and ErrorInfo detail). */
export function v1Error(error: Error): A2aRpcError {
  return toJsonRpcError(error);
}

export function invalidParams(message: string): A2aRpcError {
  return v1Error(new RequestMalformedError({ message: `Invalid params: ${message}` }));
}

export function versionNotSupported(requested: string): A2aRpcError {
  return v1Error(
    new VersionNotSupportedError({
      message: `A2A version "${clip(requested, 32)}" is not supported: send A2A-Version: 1.0 for A2A 1.0, or no A2A-Version (or 0.3) for A2A 0.3.`,
    }),
  );
}

function issuesOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "params"}: ${issue.message}`)
    .join("; ");
}

/** Pure: parses and checks an A2A 1.0 JSON-RPC body (exported for property tests). */
export function parseA2aV1Request(text: string): ParsedA2aV1Request {
  const envelope = readEnvelope(text);
  if (!envelope.ok) return envelope;
  const { id, method, params } = envelope;
  // Own keys only: a method such as "toString" or "constructor" must not find Object.prototype's members.
  const unsupported = Object.hasOwn(UNSUPPORTED, method) ? UNSUPPORTED[method] : undefined;
  if (unsupported) return { ok: false, id, error: v1Error(unsupported()) };
  if (!(V1_METHODS as readonly string[]).includes(method)) {
    const hint = isLegacyJsonRpcMethod(method) ? ` (${method} is an A2A 0.3 method: send it without the A2A-Version header, or use its 1.0 name)` : "";
    return { ok: false, id, error: { code: JSONRPC_ERRORS.methodNotFound, message: `Method not found: ${clip(method, 100)}${hint}` } };
  }
  const v1Method = method as V1Method;
  if (v1Method === "ListTasks" && (typeof params !== "object" || params === null || !Object.hasOwn(params, "contextId"))) {
    return {
      ok: false,
      id,
      error: invalidParams("contextId: required. ListTasks lists the tasks of one context (the contextId your SendMessage answer carries); tasks are never listed across callers."),
    };
  }
  const checked = PARAMS[v1Method].safeParse(params);
  if (!checked.success) return { ok: false, id, error: invalidParams(issuesOf(checked.error)) };
  // Data parts and metadata are free-form JSON: the text rule is checked on every string they hold.
  // Scanned as sent, not as zod copied it: a copy drops a "__proto__" member, and its string with it.
  const unacceptable = findStringWhere(params, (s) => !isAcceptableText(s));
  if (unacceptable) return { ok: false, id, error: invalidParams(`${describePath(unacceptable)}: must be well-formed Unicode without NUL characters`) };
  return { ok: true, id, method: v1Method, params: checked.data as Record<string, unknown> };
}
