// The one place that builds error bodies (CONTRACT.md §2) and challenges: Bearer (CONTRACT.md §6, RFC 6750 §3), DPoP
// (RFC 9449 §7.1) and Signature (Web Bot Auth).
import { getConfig } from "@/lib/config";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";
import { DPOP_ALGORITHMS } from "@/lib/schemas/service-auth";
import type { ApiReply } from "./api";

export const ERROR_STATUS = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_target: 400,
  invalid_grant: 400,
  authorization_pending: 400,
  access_denied: 400,
  expired_token: 400,
  slow_down: 400,
  invalid_claim_token: 400,
  claim_expired: 400,
  claimed_or_in_flight: 409,
  // DPoP (RFC 9449 §5.2, §8; issue 52): 400 at the token endpoint and the registration, 401 (a DPoP challenge) on a resource.
  invalid_dpop_proof: 400,
  use_dpop_nonce: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  not_supported: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  rate_limited: 429,
  // A Web Bot Auth signature that is present but not accepted (issue 44): 401 with a Signature challenge.
  invalid_signature: 401,
  expired_signature: 401,
  replayed_signature: 401,
  unknown_key: 401,
  directory_unavailable: 401,
  // Issue 53: AGENT_SIGNATURE_REQUIRED and an unsigned registration; a blocked agent origin; an approval that waits
  // for the agent's confirmation code (RFC 6749 §5.2's shape, like authorization_pending).
  signature_required: 401,
  agent_blocked: 403,
  confirmation_required: 400,
  server_error: 500,
  temporarily_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: string;
  error_description: string;
}

export interface ErrorOptions {
  /** Overrides the code's status, e.g. 413 for an invalid_request whose body is over its limit. */
  status?: number;
  /** Seconds; sets Retry-After. */
  retryAfter?: number;
  /** Methods for the Allow header of a 405. */
  allow?: readonly string[];
  headers?: HeadersInit;
  /** The WWW-Authenticate challenge, when the route is a protected resource. */
  challenge?: string;
}

/** Bodies are one sentence; this keeps accidental multi-line or over-long text (and any secret) out. */
function oneSentence(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  // Cut by code points, and never answer a lone surrogate (lib/schemas/text.ts) or a NUL.
  const points = [...flat];
  const cut = points.length > 300 ? `${points.slice(0, 297).join("")}...` : flat;
  return (cut as unknown as { toWellFormed(): string }).toWellFormed().replace(/\u0000/g, "\uFFFD");
}

export function errorBody(code: ErrorCode | "invalid_request", description: string): ErrorBody {
  return { error: code, error_description: oneSentence(description) };
}

/** Header names lower-cased, so a reply never carries one header twice under two spellings. */
export function lowerCaseHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (init === undefined) return out;
  const entries = init instanceof Headers || Array.isArray(init) ? init : Object.entries(init);
  for (const [name, value] of entries) out[name.toLowerCase()] = value;
  return out;
}

/** An error answer as plain data (lib/http/api.ts): the body of CONTRACT.md §2 and its headers. */
export function errorReply(code: ErrorCode, description: string, options: ErrorOptions = {}): ApiReply {
  const headers = lowerCaseHeaders(options.headers);
  headers["content-type"] = "application/json";
  headers["cache-control"] = "no-store";
  if (options.retryAfter !== undefined) headers["retry-after"] = String(Math.max(0, Math.ceil(options.retryAfter)));
  if (options.allow) headers.allow = options.allow.join(", ");
  if (options.challenge) headers["www-authenticate"] = options.challenge;
  const status = options.status ?? ERROR_STATUS[code];
  // not_supported keeps the bare shape CONTRACT.md §9 gives for /api/map/search.
  const body = code === "not_supported" ? { error: code } : errorBody(code, description);
  return { status, headers, body: JSON.stringify(body) };
}

/** The JSON 404 (CONTRACT.md §2), readable from any origin. */
export const notFoundReply = (description = "No such resource on this service."): ApiReply =>
  errorReply("not_found", description, { headers: { "Access-Control-Allow-Origin": "*" } });

export const methodNotAllowedReply = (allow: readonly string[], headers?: HeadersInit): ApiReply =>
  errorReply("method_not_allowed", `This path supports only ${allow.join(", ")}.`, { allow, headers });

export const payloadTooLargeReply = (limitBytes: number): ApiReply => errorReply("invalid_request", `The request body is larger than ${limitBytes} bytes.`, { status: 413 });

export const rateLimitedReply = (retryAfterSeconds: number, headers?: HeadersInit): ApiReply =>
  errorReply("rate_limited", "Too many requests; wait for Retry-After seconds and retry.", { retryAfter: retryAfterSeconds, headers });

export const temporarilyUnavailableReply = (): ApiReply => errorReply("temporarily_unavailable", "The service cannot reach its database; retry after a delay.", { retryAfter: 5 });

/** Seconds a client is told to wait when the server is too busy to take its request (lib/admission). */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

const OVERLOADED_DESCRIPTION = "The service is too busy to take this request now; retry after Retry-After seconds.";

/**
 * A request the server refused before running it because its class of work is full (lib/admission): HTTP 503 with
 * Retry-After, as CONTRACT.md §2's temporarily_unavailable on REST, as JSON-RPC -32011 (id null: the body was never
 * read) on MCP and A2A, and as a short HTML page for a browser's page.
 */
export function overloadedReply(surface: RefusalSurface): ApiReply {
  const seconds = OVERLOADED_RETRY_AFTER_SECONDS;
  if (surface === "mcp" || surface === "a2a") {
    const refusal = temporarilyUnavailableRpcError(seconds);
    return jsonRpcErrorReply(null, refusal.error, refusal.status, refusal.headers);
  }
  if (surface === "page")
    return {
      status: 503,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "retry-after": String(seconds) },
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Busy: try again</title></head><body><main><h1>The service is busy</h1><p>${OVERLOADED_DESCRIPTION.replace("after Retry-After seconds", `in ${seconds} second`)}</p></main></body></html>`,
    };
  return errorReply("temporarily_unavailable", OVERLOADED_DESCRIPTION, { retryAfter: seconds });
}

/** How a refusal made before a handler runs is shaped: CONTRACT.md §2's body, MCP's or A2A's JSON-RPC error, or a page. */
export type RefusalSurface = "rest" | "mcp" | "a2a" | "page";

/** A body over its route's limit, refused before it is read: the same answer the route's own handler gives. */
export function bodyTooLargeReply(surface: RefusalSurface, limitBytes: number): ApiReply {
  const message = `The request body is larger than ${limitBytes} bytes.`;
  if (surface === "mcp") return jsonRpcTransportErrorReply(413, "Request body too large.");
  if (surface === "a2a") return jsonRpcErrorReply(null, { code: -32600, message }, 413);
  return payloadTooLargeReply(limitBytes);
}

/** A request whose headers or body did not arrive in full within the deadline (and at the minimum rate): 408, then the connection closes. */
export function requestTimeoutReply(surface: RefusalSurface, deadlineSeconds: number): ApiReply {
  const message = `The request did not arrive in full within ${deadlineSeconds} seconds, at the least rate the service accepts; send it again at once.`;
  if (surface === "mcp" || surface === "a2a") return jsonRpcTransportErrorReply(408, message);
  return errorReply("invalid_request", message, { status: 408 });
}

/**
 * A caller that already holds its share of a class of work, or of the bodies being read (lib/admission, the body gate):
 * HTTP 429 with Retry-After, as rate_limited on REST, -32010 on MCP and A2A, and a short page for a browser.
 */
export function callerShareReply(surface: RefusalSurface): ApiReply {
  const seconds = OVERLOADED_RETRY_AFTER_SECONDS;
  if (surface === "mcp" || surface === "a2a") return jsonRpcRateLimited(null, seconds);
  if (surface === "page")
    return {
      status: 429,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "retry-after": String(seconds) },
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many requests</title></head><body><main><h1>Too many requests from your address</h1><p>Wait ${seconds} second and try again.</p></main></body></html>`,
    };
  return errorReply("rate_limited", "This client already has its share of this kind of request in progress; wait for Retry-After seconds and retry.", { retryAfter: seconds });
}

/** A JSON-RPC error outside any request (MCP Streamable HTTP transport refusals): id null, code -32000. */
export function jsonRpcTransportErrorReply(status: number, message: string, headers?: HeadersInit): ApiReply {
  return {
    status,
    headers: { ...lowerCaseHeaders(headers), "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }),
  };
}

// ---- JSON-RPC server errors (MCP and A2A alike, every protocol generation; SHARED-DECISIONS) ----

/** Codes of the server-error range this service uses; -32001..-32009 are A2A's, -32020..-32099 MCP's. */
export const JSONRPC_SERVER_ERRORS = {
  rateLimited: -32010,
  temporarilyUnavailable: -32011,
  internalError: -32603,
} as const;

/** Seconds a client is told to wait when the database cannot be reached (the REST 503's Retry-After too). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A JSON-RPC error with the HTTP status and headers it travels with. */
export interface JsonRpcServerError {
  error: JsonRpcErrorObject;
  status: number;
  headers: Record<string, string>;
}

export function rateLimitedRpcError(retryAfterSeconds: number): JsonRpcServerError {
  const seconds = Math.max(0, Math.ceil(retryAfterSeconds));
  return {
    error: { code: JSONRPC_SERVER_ERRORS.rateLimited, message: `Rate limited: retry after ${seconds} seconds.`, data: { retry_after: seconds } },
    status: 429,
    headers: { "retry-after": String(seconds) },
  };
}

export function temporarilyUnavailableRpcError(retryAfterSeconds: number = UNAVAILABLE_RETRY_AFTER_SECONDS): JsonRpcServerError {
  const seconds = Math.max(0, Math.ceil(retryAfterSeconds));
  return {
    error: { code: JSONRPC_SERVER_ERRORS.temporarilyUnavailable, message: `Temporarily unavailable: retry after ${seconds} seconds.`, data: { retry_after: seconds } },
    status: 503,
    headers: { "retry-after": String(seconds) },
  };
}

/** An unexpected failure: never the exception's own text (it could name the database, a host or a file). */
export const INTERNAL_RPC_ERROR: JsonRpcErrorObject = { code: JSONRPC_SERVER_ERRORS.internalError, message: "Internal error: the service failed to handle this request." };

/** The wording of a tool error (MCP isError result, failed A2A task) when the database cannot be reached. */
export const TOOL_UNAVAILABLE_MESSAGE = `Temporarily unavailable: the service cannot reach its data right now; retry after ${UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`;
/** The wording of a tool error after an unexpected failure. */
export const TOOL_FAILED_MESSAGE = "The service failed to run this tool; the failure has been logged.";

// ---- Bearer challenges (RFC 6750 §3, RFC 9728 §5.1) ----

export type ChallengeKind = { kind: "no_credential" } | { kind: "invalid_token" } | { kind: "insufficient_scope"; scope: string } | { kind: "invalid_request" };

export function resourceMetadataUrl(): string {
  return `${getConfig().baseUrl}/.well-known/oauth-protected-resource/api`;
}

/** Builds the WWW-Authenticate value with CONTRACT.md §6's parameter order; never an error_description or error_uri. */
export function bearerChallenge(challenge: ChallengeKind): string {
  const params: string[] = [`realm="${getConfig().realm}"`];
  const withMetadata = isAuthDiscoveryPublic();
  switch (challenge.kind) {
    case "no_credential":
      if (withMetadata) params.push(`resource_metadata="${resourceMetadataUrl()}"`);
      break;
    case "invalid_token":
      params.push(`error="invalid_token"`);
      if (withMetadata) params.push(`resource_metadata="${resourceMetadataUrl()}"`);
      break;
    case "insufficient_scope":
      params.push(`error="insufficient_scope"`, `scope="${challenge.scope}"`);
      break;
    case "invalid_request":
      params.push(`error="invalid_request"`);
      break;
  }
  return `Bearer ${params.join(", ")}`;
}

const CHALLENGE_STATUS = { no_credential: 401, invalid_token: 401, insufficient_scope: 403, invalid_request: 400 } as const;

const CHALLENGE_DESCRIPTION = {
  no_credential: "This resource needs a Bearer access token in the Authorization header.",
  invalid_token: "The access token is invalid, expired or revoked.",
  insufficient_scope: "The access token lacks the scope this resource needs.",
  invalid_request: "Own-account routes take no query parameters and no body, and one Bearer token in the Authorization header.",
} as const;

/** A protected-resource refusal: status, JSON body and the matching challenge. */
export function challengeReply(challenge: ChallengeKind): ApiReply {
  return protectedResourceReply(challenge, bearerChallenge(challenge));
}

function protectedResourceReply(challenge: ChallengeKind, wwwAuthenticate: string): ApiReply {
  const code: ErrorCode = challenge.kind === "no_credential" ? "invalid_token" : challenge.kind;
  // The challenge itself carries no error code without a credential (RFC 6750 §3.1); the JSON body keeps §2's shape.
  return {
    status: CHALLENGE_STATUS[challenge.kind],
    headers: { "content-type": "application/json", "cache-control": "no-store", "www-authenticate": wwwAuthenticate },
    body: JSON.stringify(errorBody(code, CHALLENGE_DESCRIPTION[challenge.kind])),
  };
}

// ---- DPoP challenges (RFC 9449 §7.1; issue 52) ----

/** What a DPoP-scheme request to a protected resource is refused for. */
export type DpopChallengeError = "invalid_token" | "invalid_dpop_proof" | "use_dpop_nonce" | "invalid_request" | "insufficient_scope";

/** `DPoP error="…", algs="ES256 EdDSA Ed25519"` (with the route's `scope` for insufficient_scope); never an error_description. */
export function dpopChallenge(error: DpopChallengeError, scope?: string): string {
  const params = [`error="${error}"`];
  if (error === "insufficient_scope" && scope !== undefined) params.push(`scope="${scope}"`);
  params.push(`algs="${DPOP_ALGORITHMS.join(" ")}"`);
  return `DPoP ${params.join(", ")}`;
}

const DPOP_STATUS = { invalid_token: 401, invalid_dpop_proof: 401, use_dpop_nonce: 401, invalid_request: 400, insufficient_scope: 403 } as const;

/**
 * A protected-resource refusal of a DPoP-bound token or a DPoP-scheme request: status, CONTRACT.md §2's body (its
 * description says what to send) and the DPoP challenge; a use_dpop_nonce refusal carries the nonce (RFC 9449 §8).
 */
export function dpopRefusalReply(error: DpopChallengeError, description: string, options: { scope?: string; nonce?: string } = {}): ApiReply {
  const headers: Record<string, string> = { "content-type": "application/json", "cache-control": "no-store", "www-authenticate": dpopChallenge(error, options.scope) };
  if (options.nonce !== undefined) headers["dpop-nonce"] = options.nonce;
  return { status: DPOP_STATUS[error], headers, body: JSON.stringify(errorBody(error, description)) };
}

/** A token-endpoint or registration refusal of a DPoP proof (400, RFC 9449 §5.2 and §8): the nonce rides in DPoP-Nonce. */
export function dpopProofRefusalReply(
  error: "invalid_dpop_proof" | "use_dpop_nonce",
  detail: string,
  options: { headers?: Record<string, string>; nonce?: string } = {},
): ApiReply {
  const headers: Record<string, string> = { ...options.headers };
  if (options.nonce !== undefined) headers["dpop-nonce"] = options.nonce;
  return errorReply(error, `The DPoP proof was not accepted: ${detail}.`, { headers });
}

/**
 * A JSON-RPC error answered by the HTTP layer before any method runs (budget refusals, the per-POST message cap):
 * the error object under `id` (null when the POST held several messages or none could be read), its status and headers.
 */
export function jsonRpcErrorReply(id: string | number | null, error: JsonRpcErrorObject, status: number, headers: Record<string, string> = {}): ApiReply {
  return {
    status,
    headers: { ...headers, "content-type": "application/json", "cache-control": "no-store", "access-control-allow-origin": "*" },
    body: JSON.stringify({ jsonrpc: "2.0", id, error }),
  };
}

/** HTTP 429 + Retry-After with the JSON-RPC error -32010 (MCP and A2A alike). */
export function jsonRpcRateLimited(id: string | number | null, retryAfterSeconds: number): ApiReply {
  const refusal = rateLimitedRpcError(retryAfterSeconds);
  return jsonRpcErrorReply(id, refusal.error, refusal.status, refusal.headers);
}

/** The codes of a refused Web Bot Auth signature (issue 44). */
export type SignatureRefusalCode = "invalid_signature" | "expired_signature" | "replayed_signature" | "unknown_key" | "directory_unavailable";

/**
 * The challenge of a refused HTTP Message Signature (RFC 9421, Web Bot Auth profile): the scheme names what to send,
 * `tag` the profile, `error` the reason, as the Bearer challenge does for tokens; without a signature at all, no
 * error (as RFC 6750 §3.1 answers a request without credentials).
 */
export function signatureChallenge(code?: SignatureRefusalCode): string {
  return `Signature realm="${getConfig().realm}", tag="web-bot-auth"${code ? `, error="${code}"` : ""}`;
}

/** 401 for a signature that is present but not accepted: CONTRACT.md §2's body naming the reason, and the challenge. */
export function signatureRefusalReply(code: SignatureRefusalCode, detail: string): ApiReply {
  return errorReply(code, `The request's Web Bot Auth signature was not accepted: ${detail}.`, { challenge: signatureChallenge(code) });
}

/** 401 signature_required (issue 53): this service accepts only registrations signed in the Web Bot Auth profile. */
export function signatureRequiredReply(): ApiReply {
  return errorReply(
    "signature_required",
    "This service accepts only registrations signed with HTTP Message Signatures in the Web Bot Auth profile (RFC 9421); sign the request and send it again.",
    { challenge: signatureChallenge() },
  );
}

/**
 * 401 for a token bound to a Web Bot Auth agent (issue 52 item 5) presented without a signature of that agent: the
 * Signature challenge names what is missing (`tag="web-bot-auth"`), `error="invalid_token"` that the token is unusable so.
 */
export function boundTokenSignatureReply(description: string): ApiReply {
  return errorReply("invalid_token", description, { challenge: `Signature realm="${getConfig().realm}", tag="web-bot-auth", error="invalid_token"` });
}
