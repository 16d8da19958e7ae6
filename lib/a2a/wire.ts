// The JSON-RPC pieces both A2A generations (0.3 in ./jsonrpc.ts, 1.0 in ./v1.ts) read alike: the error codes,
// the envelope and the bounded strings. Every string of a request is well-formed Unicode without NUL
// (lib/schemas/text.ts): ids are database keys, parts are stored with the task and echoed in its history.
import { z } from "zod";
import { text as boundaryText } from "@/lib/schemas/text";

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
  /** A2A 1.0: the A2A-Version header names a version this agent does not speak. */
  versionNotSupported: -32009,
} as const;

export type JsonRpcId = string | number | null;

/** A JSON-RPC error object of either generation (1.0 adds `data`: a list of ErrorInfo details). */
export interface A2aRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export const idSchema = z.union([boundaryText().max(256), z.number().int(), z.null()]);

export const envelopeSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: boundaryText().min(1).max(100),
  id: idSchema.optional(),
  params: z.unknown().optional(),
});

export const boundedString = boundaryText().min(1).max(256);
export const metadataSchema = z.record(z.string(), z.unknown());

/** The members of a send's `configuration` both generations share (1.0 adds returnImmediately, 0.3 has blocking). */
export const sendConfigurationFields = {
  acceptedOutputModes: z.array(boundaryText().max(256)).max(20).optional(),
  historyLength: z.number().int().min(0).optional(),
};

/** Reads the id of a body that failed the envelope check, for the answer (null when it is not a valid id). */
export function envelopeId(body: unknown): JsonRpcId {
  const rawId = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)["id"] : undefined;
  const id = idSchema.safeParse(rawId);
  return id.success ? id.data : null;
}

export type ReadEnvelope = { ok: true; id: JsonRpcId; method: string; params: unknown } | { ok: false; id: JsonRpcId; error: A2aRpcError };

/** Parses a body as one JSON-RPC 2.0 request object: the first step of both generations' parsers. */
export function readEnvelope(text: string): ReadEnvelope {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, id: null, error: { code: JSONRPC_ERRORS.parseError, message: "Parse error: the body is not valid JSON." } };
  }
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) {
    return {
      ok: false,
      id: envelopeId(body),
      error: { code: JSONRPC_ERRORS.invalidRequest, message: 'Invalid Request: send one JSON-RPC 2.0 object {"jsonrpc": "2.0", "id", "method", "params"}.' },
    };
  }
  return { ok: true, id: envelope.data.id ?? null, method: envelope.data.method, params: envelope.data.params };
}
