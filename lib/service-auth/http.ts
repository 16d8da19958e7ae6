// HTTP side of the service_auth endpoints (SPEC.md "Endpoints", CONTRACT.md §2–5): strict parsing, rate
// limits, exact response objects and headers. The state machine itself lives in lib/service-auth/lifecycle.ts.
import type { z } from "zod";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { sha256 } from "@/lib/crypto/secrets";
import { jsonReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { readForm, readJsonObject, type BodyResult } from "@/lib/http/body";
import { callerKey } from "@/lib/http/client-ip";
import { dpopProofRefusalReply, errorReply, payloadTooLargeReply, rateLimitedReply, signatureRefusalReply, signatureRequiredReply, type ErrorCode } from "@/lib/http/errors";
import { getConfig } from "@/lib/config";
import { isOriginBlocked, networkHash } from "@/lib/consent";
import { agentCallerKey, agentIdentityOf, isSigned } from "@/lib/agent-identity";
import { dpopProofOf, type DpopPresentation } from "@/lib/dpop";
import { normalizeEmail } from "@/lib/members/normalize";
import { budgetRule, chargeBudgets, hitRateLimit, rateLimitHeaders, type RateLimitRule } from "@/lib/rate-limit";
import { pollClaim, refreshClaim, registerClaim, verificationUri, ATTEMPT_LIFETIME_SECONDS, type NewAttempt } from "@/lib/service-auth/lifecycle";
import { exchangeIdentityAssertion } from "@/lib/assertions";
import { observeTokenGrant } from "@/lib/observability/events";
import { revokeAccessToken, tokenTypeOf, type TokenBinding } from "@/lib/tokens";
import { TOKEN_ERROR_DESCRIPTIONS } from "./token-errors";
import {
  CLAIM_GRANT_TYPE,
  JWT_BEARER_GRANT_TYPE,
  SCOPES,
  claimRefreshRequestSchema,
  registrationRequestSchema,
  revokeRequestSchema,
  tokenRequestSchema,
  type ClaimGrantTokenResponse,
  type ClaimRefreshResponse,
  type JwtBearerTokenResponse,
  type RegistrationResponse,
} from "@/lib/schemas/service-auth";
import { AUTH_BODY_LIMIT } from "./limits";

export { AUTH_BODY_LIMIT };

export const IDENTITY_IP_RULE: RateLimitRule = budgetRule("identity");
export const IDENTITY_LOGIN_HINT_RULE: RateLimitRule = budgetRule("identityLoginHint");

const NO_STORE = { "cache-control": "no-store" } as const;
/** Token endpoint answers, errors included (RFC 6749 §5.1). */
const TOKEN_HEADERS = { "cache-control": "no-store", pragma: "no-cache" } as const;

const json = (body: unknown, headers: Record<string, string> = NO_STORE): ApiReply => jsonReply(body, headers);

const iso = (d: Date): string => d.toISOString();

function bodyError(result: Extract<BodyResult<unknown>, { ok: false }>, headers?: Record<string, string>): ApiReply {
  return result.reason === "too_large" ? payloadTooLargeReply(AUTH_BODY_LIMIT) : errorReply("invalid_request", result.message, { headers });
}

/** One sentence naming the first problem; never echoes a submitted value. */
function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "The request is malformed.";
  if (issue.code === "unrecognized_keys") return `Unknown member${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map((k) => k.slice(0, 40)).join(", ")}.`;
  const field = issue.path.map(String).join(".") || "body";
  if (issue.code === "invalid_type" && issue.input === undefined) return `The member ${field} is required.`;
  return `The member ${field} is invalid: ${issue.message}.`;
}

function attemptObject(attempt: NewAttempt) {
  return { user_code: attempt.userCode, expires_in: ATTEMPT_LIFETIME_SECONDS, verification_uri: verificationUri(attempt.attemptToken), interval: attempt.interval };
}

async function limited(rule: RateLimitRule, subject: string, clock: Clock): Promise<ApiReply | null> {
  const result = await hitRateLimit(rule, subject, clock);
  return result.allowed ? null : rateLimitedReply(result.resetSeconds, { ...rateLimitHeaders(result), ...NO_STORE });
}

const AGENT_BLOCKED_DESCRIPTION = "The operator of this service has blocked this agent origin after reports of requests members did not start; nothing was written.";

/** POST /agent/identity */
export async function handleRegistration(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  const body = await readJsonObject(request, AUTH_BODY_LIMIT);
  if (!body.ok) return bodyError(body);
  const parsed = registrationRequestSchema.safeParse(body.value);
  if (!parsed.success) return errorReply("invalid_request", describeIssue(parsed.error));
  // Only well-formed requests count; the e-mail is kept in the bucket key as a hash.
  const loginHint = normalizeEmail(parsed.data.login_hint);
  // Issue 44: a signature that is present must verify (nothing is written otherwise); a verified agent is counted
  // under its origin, everyone else (a refused signature too) under the address.
  const identity = isSigned(request.headers) ? await agentIdentityOf(request, clock) : null;
  const caller = identity?.kind === "verified" ? agentCallerKey(identity.origin) : callerKey(request.headers);
  const refused = (await limited(IDENTITY_IP_RULE, caller, clock)) ?? (await limited(IDENTITY_LOGIN_HINT_RULE, sha256(loginHint), clock));
  if (refused) return refused;
  if (identity?.kind === "invalid") return signatureRefusalReply(identity.reason, identity.detail);
  // Issue 52 item 3: a valid DPoP proof binds the whole delegation to its key (as dpop_jkt binds a code, RFC 9449 §10).
  const proof = await dpopProofOf(request, {}, clock);
  if (proof.kind === "refused") return proofRefusal(proof, NO_STORE);
  const agent = identity?.kind === "verified" ? { origin: identity.origin, thumbprint: identity.thumbprint } : null;
  // Issue 53: the operator may refuse unsigned agents, and blocked origins; the network is kept as a keyed hash.
  if (agent === null && getConfig().agentSignatureRequired) return signatureRequiredReply();
  if (agent !== null && (await isOriginBlocked(agent.origin))) return errorReply("agent_blocked", AGENT_BLOCKED_DESCRIPTION);
  const network = await networkHash(callerKey(request.headers));
  const scopes = parsed.data.scopes ?? [...SCOPES];
  const dpopJkt = proof.kind === "valid" ? proof.jkt : null;
  const reg = await registerClaim({ loginHint, clientName: parsed.data.client_name ?? null, scopes, agent, dpopJkt, network }, clock);
  const response: RegistrationResponse = {
    registration_id: reg.registrationId,
    registration_type: "service_auth",
    claim_url: absoluteUrl("/agent/identity/claim"),
    claim_token: reg.claimToken,
    claim_token_expires: iso(reg.claimExpiresAt),
    post_claim_scopes: reg.scopes,
    claim: attemptObject(reg.attempt),
  };
  return json(response);
}

// CONTRACT.md §4: an unknown claim token and a wrong e-mail are both invalid_claim_token, but only the first ends
// the registration; the second says so and leaves the claim usable with the right e-mail (never naming it).
const REFRESH_ERRORS = {
  invalid_claim_token: { code: "invalid_claim_token", description: "The claim token is unknown; begin a new registration." },
  email_mismatch: {
    code: "invalid_claim_token",
    description: "The e-mail does not match the login_hint of this registration; send the same e-mail address the registration was made with (the claim token is unchanged).",
  },
  claim_expired: { code: "claim_expired", description: "The outer claim has expired; begin a new registration." },
  claimed_or_in_flight: { code: "claimed_or_in_flight", description: "An attempt is still open or the claim was already decided; do not retry this refresh." },
} as const satisfies Record<string, { code: ErrorCode; description: string }>;

/** POST /agent/identity/claim */
export async function handleClaimRefresh(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  const body = await readJsonObject(request, AUTH_BODY_LIMIT);
  if (!body.ok) return bodyError(body);
  const parsed = claimRefreshRequestSchema.safeParse(body.value);
  if (!parsed.success) return errorReply("invalid_request", describeIssue(parsed.error));
  const network = await networkHash(callerKey(request.headers));
  const outcome = await refreshClaim({ claimToken: parsed.data.claim_token, email: parsed.data.email, network }, clock);
  if (!outcome.ok) return errorReply(REFRESH_ERRORS[outcome.error].code, REFRESH_ERRORS[outcome.error].description);
  const response: ClaimRefreshResponse = {
    registration_id: outcome.registrationId,
    claim_attempt_id: outcome.attempt.attemptId,
    status: "initiated",
    expires_at: iso(outcome.attempt.expiresAt),
    claim_attempt: attemptObject(outcome.attempt),
  };
  return json(response);
}

/** Issue 53's answers, each in RFC 6749 §5.2's shape: the error the agent acts on, and why. */
function confirmationError(outcome: { error: "wrong_confirmation_code"; remainingTries: number } | { error: "confirmation_denied" }): ApiReply {
  if (outcome.error === "confirmation_denied") return tokenError("access_denied", "The confirmation code was wrong three times, so the request was denied; stop.");
  const tries = outcome.remainingTries === 1 ? "1 try is" : `${outcome.remainingTries} tries are`;
  return tokenError("invalid_grant", `The confirmation code is not correct; ${tries} left before the request is denied. Ask the account owner for the code again.`);
}

function tokenError(code: ErrorCode, description = TOKEN_ERROR_DESCRIPTIONS[code] ?? "The token request failed.", retryAfter?: number): ApiReply {
  return errorReply(code, description, { headers: TOKEN_HEADERS, retryAfter });
}

/** Issue 44's binding: named, so the agent knows a signature (not a new registration) is what it lacks. */
const AGENT_BINDING_DESCRIPTION =
  "This registration was signed by a verified agent (Web Bot Auth): its polls and exchanges must be signed by a key of the same agent origin; nothing was issued.";

/** Issue 52's bindings, named likewise: a proof of the bound key is what the request lacks. */
const DPOP_REGISTRATION_DESCRIPTION = "This registration is bound to a DPoP key (RFC 9449): each claim poll must carry a DPoP proof of the same key; nothing was issued.";
const DPOP_ASSERTION_DESCRIPTION = "This identity assertion is bound to a DPoP key (its cnf.jkt): its exchange must carry a DPoP proof of the same key; nothing was issued.";

/** A DPoP proof that is present but not accepted: 400 invalid_dpop_proof, or use_dpop_nonce with its DPoP-Nonce. */
function proofRefusal(proof: Extract<DpopPresentation, { kind: "refused" }>, headers: Record<string, string>): ApiReply {
  return dpopProofRefusalReply(proof.error, proof.detail, { headers, ...(proof.error === "use_dpop_nonce" ? { nonce: proof.nonce } : {}) });
}

/** Issue 52 item 5: the token response names the agent origin a token is bound to (its token_type names a DPoP key). */
function agentOriginMember(binding: TokenBinding): { agent_origin?: string } {
  return binding.agentOrigin !== null ? { agent_origin: binding.agentOrigin } : {};
}

/** The verified Web Bot Auth origin of a token request, or null (unsigned, or a signature not accepted). */
async function verifiedOriginOf(request: ApiRequest, clock: Clock): Promise<string | null> {
  if (!isSigned(request.headers)) return null;
  const identity = await agentIdentityOf(request, clock);
  return identity.kind === "verified" ? identity.origin : null;
}

/** POST /oauth2/token: the claim grant and the JWT-bearer grant. */
export async function handleToken(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  const form = await readForm(request, AUTH_BODY_LIMIT);
  if (!form.ok) return form.reason === "too_large" ? payloadTooLargeReply(AUTH_BODY_LIMIT) : tokenError("invalid_request", form.message);
  const grantType = form.value.get("grant_type");
  if (grantType === undefined || grantType === "") return tokenError("invalid_request", "The field grant_type is required.");
  if (grantType !== CLAIM_GRANT_TYPE && grantType !== JWT_BEARER_GRANT_TYPE) {
    return tokenError("unsupported_grant_type", "Use the claim grant or the JWT-bearer grant only.");
  }
  const parsed = tokenRequestSchema.safeParse(Object.fromEntries(form.value));
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.map(String).join(".") ?? "request";
    return tokenError("invalid_request", `The field ${field} is missing or invalid.`);
  }
  const input = parsed.data;
  // Issue 52 item 2: a DPoP proof binds the token to its key; a proof present but not accepted issues nothing.
  const proof = await dpopProofOf(request, {}, clock);
  if (proof.kind === "refused") return proofRefusal(proof, TOKEN_HEADERS);
  const dpopJkt = proof.kind === "valid" ? proof.jkt : null;
  const signedBy = await verifiedOriginOf(request, clock);
  if (input.grant_type === CLAIM_GRANT_TYPE) {
    const outcome = await pollClaim(input.claim_token, clock, { signedBy, dpopJkt }, input.confirmation_code);
    if (!outcome.ok) {
      if (outcome.error === "slow_down") return tokenError("slow_down", `Polling too fast; the interval is now ${outcome.interval} seconds.`, outcome.interval);
      if (outcome.error === "agent_binding") return tokenError("invalid_grant", AGENT_BINDING_DESCRIPTION);
      if (outcome.error === "wrong_confirmation_code" || outcome.error === "confirmation_denied") return confirmationError(outcome);
      if (outcome.error === "dpop_binding") return tokenError("invalid_grant", DPOP_REGISTRATION_DESCRIPTION);
      return tokenError(outcome.error);
    }
    const response: ClaimGrantTokenResponse = {
      access_token: outcome.accessToken,
      token_type: tokenTypeOf(outcome.binding),
      expires_in: 3600,
      scope: outcome.scope,
      identity_assertion: outcome.identityAssertion,
      assertion_expires: iso(outcome.assertionExpiresAt),
      ...agentOriginMember(outcome.binding),
    };
    return json(response, TOKEN_HEADERS);
  }
  // Each exchange writes a token row: one assertion gets a budget of exchanges (lib/shared-state, keyed by its hash).
  const refused = await chargeBudgets([{ budget: "tokenExchange", key: sha256(input.assertion), cost: 1 }], clock);
  if (refused)
    return errorReply("rate_limited", "Too many exchanges of this assertion; wait for Retry-After seconds and retry.", {
      headers: TOKEN_HEADERS,
      retryAfter: refused.retryAfterSeconds,
    });
  const outcome = await exchangeIdentityAssertion({ assertion: input.assertion, resource: input.resource, signedBy, dpopJkt }, clock);
  observeTokenGrant("jwt-bearer", outcome.ok ? "issued" : outcome.error === "agent_binding" || outcome.error === "dpop_binding" ? "invalid_grant" : outcome.error);
  if (!outcome.ok) {
    if (outcome.error === "agent_binding") return tokenError("invalid_grant", AGENT_BINDING_DESCRIPTION);
    if (outcome.error === "dpop_binding") return tokenError("invalid_grant", DPOP_ASSERTION_DESCRIPTION);
    return tokenError(outcome.error);
  }
  const { token } = outcome;
  const response: JwtBearerTokenResponse = {
    access_token: token.accessToken,
    token_type: tokenTypeOf(token.binding),
    expires_in: 3600,
    scope: token.scope,
    ...agentOriginMember(token.binding),
  };
  return json(response, TOKEN_HEADERS);
}

/** POST /oauth2/revoke (RFC 7009): 200 with an empty body whether or not the token existed. */
export async function handleRevoke(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  const form = await readForm(request, AUTH_BODY_LIMIT);
  if (!form.ok) return form.reason === "too_large" ? payloadTooLargeReply(AUTH_BODY_LIMIT) : errorReply("invalid_request", form.message, { headers: TOKEN_HEADERS });
  const parsed = revokeRequestSchema.safeParse(Object.fromEntries(form.value));
  if (!parsed.success) return errorReply("invalid_request", "The field token is missing or invalid.", { headers: TOKEN_HEADERS });
  await revokeAccessToken(parsed.data.token, clock);
  return { status: 200, headers: { ...TOKEN_HEADERS }, body: null };
}
