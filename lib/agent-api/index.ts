// The protected own-account routes under /api/v1/agent/ (SPEC.md "Authentication" 2 and 6, CONTRACT.md §6):
// a token only from the Authorization header (never query, body or cookie), the route's scope,
// no query parameters and no body; every refusal is a challenge from lib/http/errors.ts.
// Issue 52: a token bound to a DPoP key is accepted only as `Authorization: DPoP` with a proof of that key (RFC 9449
// §7), and a token bound to a Web Bot Auth agent only on a request signed by a key of that agent's origin.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { jsonReply, queryOf, type ApiReply, type ApiRequest, type HeaderReader } from "@/lib/http/api";
import { boundTokenSignatureReply, challengeReply, dpopRefusalReply, signatureRefusalReply, type ChallengeKind } from "@/lib/http/errors";
import { agentIdentityOf, isSigned } from "@/lib/agent-identity";
import { dpopProofOf } from "@/lib/dpop";
import { findValidAccessToken, recordTokenUse, type VerifiedAccessToken } from "@/lib/tokens";
import type { OwnAccountResponse, OwnRegistrationsResponse, Scope } from "@/lib/schemas/service-auth";

export type OwnAccountRoute = "account" | "registrations";

export const ROUTE_SCOPE: Record<OwnAccountRoute, Scope> = {
  account: "agent.account.read",
  registrations: "agent.registrations.read",
};

/** RFC 6750 §2.1 and RFC 9449 §7.1: "Bearer" or "DPoP", 1*SP, b64token. */
const CREDENTIAL = /^(?:Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Scheme = "bearer" | "dpop";
type Credential = { kind: "none" } | { kind: "malformed"; scheme: Scheme } | { kind: "token"; scheme: Scheme; token: string };

function credentialOf(headers: HeaderReader): Credential {
  const value = headers.get("authorization");
  if (value === null || value.trim() === "") return { kind: "none" };
  const scheme: Scheme | null = /^bearer(\s|$)/i.test(value) ? "bearer" : /^dpop(\s|$)/i.test(value) ? "dpop" : null;
  // Another scheme (Basic…) is an unsupported method: answered like no credential (RFC 6750 §3.1).
  if (scheme === null) return { kind: "none" };
  const match = CREDENTIAL.exec(value);
  return match ? { kind: "token", scheme, token: match[1]! } : { kind: "malformed", scheme };
}

const DPOP_DESCRIPTIONS = {
  invalid_request: "Own-account routes take no query parameters and no body, and one DPoP-bound access token in the Authorization header.",
  invalid_token: "The access token is invalid, expired or revoked.",
  insufficient_scope: "The access token lacks the scope this resource needs.",
  bearer_use: "This access token is bound to a DPoP key: send it as Authorization: DPoP <token> with a DPoP proof of that key (RFC 9449).",
  no_proof: "A DPoP-bound access token needs a DPoP proof of its key in the DPoP header.",
  other_key: "The DPoP proof is of another key than the one this access token is bound to.",
  not_bound: "This access token is not bound to a DPoP key: send it as Authorization: Bearer <token>.",
} as const;

const SIGNATURE_BINDING_DESCRIPTION =
  "This access token is bound to the Web Bot Auth agent whose signed registration it came from: sign each request with a key of that agent origin's directory.";

/** A refusal in the scheme the request used: today's Bearer challenges, or their DPoP counterparts (RFC 9449 §7.1). */
function schemeRefusal(scheme: Scheme, challenge: Exclude<ChallengeKind, { kind: "no_credential" }>): ApiReply {
  if (scheme === "bearer") return challengeReply(challenge);
  return challenge.kind === "insufficient_scope"
    ? dpopRefusalReply("insufficient_scope", DPOP_DESCRIPTIONS.insufficient_scope, { scope: challenge.scope })
    : dpopRefusalReply(challenge.kind, DPOP_DESCRIPTIONS[challenge.kind]);
}

/**
 * Why a valid token may not be used on this request (issue 52), or null: a DPoP-bound token needs the DPoP scheme and a
 * proof of its key (with `ath`); a DPoP-scheme request needs a DPoP-bound token; a token bound to a Web Bot Auth agent
 * needs a signature verified as that agent's origin (draft-richer-oauth-httpsig's presentation rule, §"Presenting").
 */
async function bindingRefusal(request: ApiRequest, credential: { scheme: Scheme; token: string }, grant: VerifiedAccessToken, clock: Clock): Promise<ApiReply | null> {
  const { dpopJkt, agentOrigin } = grant.binding;
  if (dpopJkt !== null) {
    if (credential.scheme !== "dpop") return dpopRefusalReply("invalid_token", DPOP_DESCRIPTIONS.bearer_use);
    const proof = await dpopProofOf(request, { accessToken: credential.token }, clock);
    if (proof.kind === "none") return dpopRefusalReply("invalid_dpop_proof", DPOP_DESCRIPTIONS.no_proof);
    if (proof.kind === "refused")
      return dpopRefusalReply(proof.error, `The DPoP proof was not accepted: ${proof.detail}.`, proof.error === "use_dpop_nonce" ? { nonce: proof.nonce } : {});
    if (proof.jkt !== dpopJkt) return dpopRefusalReply("invalid_token", DPOP_DESCRIPTIONS.other_key);
  } else if (credential.scheme === "dpop") {
    return dpopRefusalReply("invalid_token", DPOP_DESCRIPTIONS.not_bound);
  }
  if (agentOrigin !== null) {
    const identity = isSigned(request.headers) ? await agentIdentityOf(request, clock) : null;
    if (identity?.kind === "invalid") return signatureRefusalReply(identity.reason, identity.detail);
    if (identity?.kind !== "verified" || identity.origin !== agentOrigin) return boundTokenSignatureReply(SIGNATURE_BINDING_DESCRIPTION);
  }
  return null;
}

/**
 * A query parameter or any body byte makes the request malformed (CONTRACT.md §6). A bare "?" carries no
 * parameter: Next drops it from the URL before the route file sees it, so the node:http front ignores it too.
 */
async function isMalformed(request: ApiRequest): Promise<boolean> {
  if (queryOf(request.target) !== "") return true;
  const length = request.headers.get("content-length");
  if (length !== null && length.trim() !== "0") return true;
  if (request.headers.get("transfer-encoding") !== null) return true;
  const body = await request.readBody(0);
  return !body.ok || body.value.length > 0;
}

function accountBody(grant: VerifiedAccessToken): OwnAccountResponse {
  return {
    account_id: grant.memberId,
    email: grant.memberEmail,
    email_verified: true,
    authorization: {
      registration_id: grant.registrationId,
      registration_type: "service_auth",
      client_name: grant.clientName,
      scope: grant.scope,
      resource: grant.resource,
      token_expires_at: grant.expiresAt.toISOString(),
    },
  };
}

function registrationsBody(grant: VerifiedAccessToken): OwnRegistrationsResponse {
  // Zero or one item: the registration the token belongs to.
  return {
    registrations: [
      { id: grant.registrationId, registration_type: "service_auth", status: grant.registrationStatus as OwnRegistrationsResponse["registrations"][number]["status"] },
    ],
  };
}

/** GET or HEAD of an own-account route. */
export async function serveOwnAccountRoute(request: ApiRequest, route: OwnAccountRoute, clock: Clock = systemClock): Promise<ApiReply> {
  if (await isMalformed(request)) return challengeReply({ kind: "invalid_request" });
  const credential = credentialOf(request.headers);
  if (credential.kind === "none") return challengeReply({ kind: "no_credential" });
  if (credential.kind === "malformed") return schemeRefusal(credential.scheme, { kind: "invalid_request" });
  const grant = await findValidAccessToken(credential.token, clock);
  if (!grant) return schemeRefusal(credential.scheme, { kind: "invalid_token" });
  const refused = await bindingRefusal(request, credential, grant, clock);
  if (refused) return refused;
  const scope = ROUTE_SCOPE[route];
  if (!grant.scopes.includes(scope)) return schemeRefusal(credential.scheme, { kind: "insufficient_scope", scope });
  await recordTokenUse(grant, clock);
  const body = route === "account" ? accountBody(grant) : registrationsBody(grant);
  return jsonReply(body, { "cache-control": "no-store", vary: "Authorization" }, 200, request.method === "HEAD");
}
