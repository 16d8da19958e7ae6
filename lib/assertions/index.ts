// Identity assertions (CONTRACT.md §5): EdDSA (Ed25519) JWTs signed with the active key of lib/keys,
// header typ "agent-identity+jwt" and kid; exchanged for fresh access tokens with the JWT-bearer grant.
import { SignJWT, errors as joseErrors, jwtVerify, decodeProtectedHeader, importJWK, type CryptoKey, type JWTPayload } from "jose";
import { randomUUID } from "node:crypto";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { transaction } from "@/lib/db";
import { findDelegationOfRegistration } from "@/lib/grants/delegations";
import { getKeySet } from "@/lib/keys";
import { issueAccessToken, protectedResource, type IssuedAccessToken } from "@/lib/tokens";
import { VerifiedAssertionCache } from "./verified-cache";

export const ASSERTION_TYPE = "agent-identity+jwt";
export const ASSERTION_ALGORITHM = "EdDSA";
export const ASSERTION_LIFETIME_SECONDS = 24 * 3600;

export interface AssertionClaims {
  memberId: string;
  registrationId: string;
  scope: string;
  clientName: string | null;
  /**
   * Issue 52: the DPoP key the assertion is bound to (its `cnf.jkt`, RFC 7800 / RFC 9449 §6.1), the key the poll that
   * got it proved; its exchange must prove the same key. Null: unbound (the poll carried no proof).
   */
  jkt: string | null;
}

export interface SignedAssertion {
  assertion: string;
  expiresAt: Date;
}

/** Signs a fresh assertion with the active key. Load the key set before any transaction (it may read the database). */
export async function signIdentityAssertion(claims: AssertionClaims, clock: Clock = systemClock): Promise<SignedAssertion> {
  const { active } = await getKeySet();
  const base = getConfig().baseUrl;
  const iat = Math.floor(clock.now().getTime() / 1000);
  const exp = iat + ASSERTION_LIFETIME_SECONDS;
  const payload: JWTPayload & Record<string, unknown> = {
    scope: claims.scope,
    registration_id: claims.registrationId,
    ...(claims.clientName !== null ? { client_name: claims.clientName } : {}),
    ...(claims.jkt !== null ? { cnf: { jkt: claims.jkt } } : {}),
  };
  const assertion = await new SignJWT(payload)
    .setProtectedHeader({ alg: ASSERTION_ALGORITHM, typ: ASSERTION_TYPE, kid: active.kid })
    .setIssuer(base)
    .setAudience(base)
    .setSubject(claims.memberId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(active.privateKey);
  return { assertion, expiresAt: new Date(exp * 1000) };
}

const verificationKeys = new Map<string, Promise<CryptoKey>>();

/** The public key of a kid we publish (never a key named by the token itself). */
async function verificationKey(kid: unknown): Promise<CryptoKey | null> {
  if (typeof kid !== "string") return null;
  const { all } = await getKeySet();
  const key = all.find((k) => k.kid === kid);
  if (!key) return null;
  let imported = verificationKeys.get(kid);
  if (!imported) {
    imported = importJWK(key.publicJwk, ASSERTION_ALGORITHM) as Promise<CryptoKey>;
    verificationKeys.set(kid, imported);
  }
  return imported;
}

/** Successful verifications of this process's key set (lib/assertions/verified-cache.ts); ~10 MB at most. */
const verified = new VerifiedAssertionCache<AssertionClaims>(10_000);

/** Checks signature (pinned alg, key by kid), typ, iss, aud (one string, the base), exp; returns the claims or null. */
export async function verifyIdentityAssertion(assertion: string, clock: Clock = systemClock): Promise<AssertionClaims | null> {
  if (assertion.length > 8192) return null;
  const config = getConfig();
  const cached = verified.get(assertion, Math.floor(clock.now().getTime() / 1000));
  if (cached) return cached;
  const base = config.baseUrl;
  try {
    const key = await verificationKey(decodeProtectedHeader(assertion).kid);
    if (!key) return null;
    const { payload } = await jwtVerify(assertion, key, {
      algorithms: [ASSERTION_ALGORITHM],
      typ: ASSERTION_TYPE,
      issuer: base,
      audience: base,
      currentDate: clock.now(),
      clockTolerance: 0,
      requiredClaims: ["iss", "aud", "sub", "iat", "exp", "jti"],
    });
    if (payload.aud !== base) return null;
    if (typeof payload.sub !== "string" || typeof payload.registration_id !== "string" || typeof payload.scope !== "string") return null;
    const clientName = typeof payload.client_name === "string" ? payload.client_name : null;
    const jkt = confirmationKeyOf(payload.cnf);
    if (jkt === undefined) return null;
    const claims: AssertionClaims = { memberId: payload.sub, registrationId: payload.registration_id, scope: payload.scope, clientName, jkt };
    // jose has checked that iat and exp are numbers (requiredClaims).
    verified.remember(assertion, { claims, issuedAt: payload.iat!, expiresAt: payload.exp! });
    return claims;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError || error instanceof SyntaxError) return null;
    throw error;
  }
}

/** The key of a `cnf` claim (null: none); undefined when a `cnf` is there but is not `{"jkt": "<thumbprint>"}`. */
function confirmationKeyOf(cnf: unknown): string | null | undefined {
  if (cnf === undefined) return null;
  if (typeof cnf !== "object" || cnf === null) return undefined;
  const jkt = (cnf as Record<string, unknown>).jkt;
  return typeof jkt === "string" && /^[A-Za-z0-9_-]{43}$/.test(jkt) ? jkt : undefined;
}

/**
 * `agent_binding`: the registration was signed (issue 44) and this exchange is not signed by a key of the same origin.
 * `dpop_binding`: the assertion is bound to a DPoP key (cnf.jkt, issue 52) and this exchange proves another key or none.
 */
export type ExchangeOutcome = { ok: true; token: IssuedAccessToken } | { ok: false; error: "invalid_target" | "invalid_grant" | "agent_binding" | "dpop_binding" };

/**
 * The JWT-bearer grant (RFC 7523): `resource` must be exactly {base}/api; a valid assertion whose
 * delegation is still active yields a fresh access token; the assertion stays valid for re-exchange.
 * `dpopJkt`: the key the exchange's DPoP proof proved (null: none); the token is bound to it.
 */
export async function exchangeIdentityAssertion(
  input: { assertion: string; resource: string; signedBy?: string | null; dpopJkt?: string | null },
  clock: Clock = systemClock,
): Promise<ExchangeOutcome> {
  if (input.resource !== protectedResource()) return { ok: false, error: "invalid_target" };
  const claims = await verifyIdentityAssertion(input.assertion, clock);
  if (!claims) return { ok: false, error: "invalid_grant" };
  const dpopJkt = input.dpopJkt ?? null;
  // A leaked bound assertion is useless without its key (checked before any row is read).
  if (claims.jkt !== null && claims.jkt !== dpopJkt) return { ok: false, error: "dpop_binding" };
  return transaction(async () => {
    const delegation = await findDelegationOfRegistration(claims.registrationId);
    if (!delegation || delegation.status !== "active" || delegation.registrationStatus !== "active" || delegation.memberId !== claims.memberId) {
      return { ok: false, error: "invalid_grant" } as const;
    }
    // A signed registration binds its delegation to its agent's keys: a leaked assertion alone is not enough.
    if (delegation.agentOrigin !== null && delegation.agentOrigin !== (input.signedBy ?? null)) return { ok: false, error: "agent_binding" } as const;
    const binding = { dpopJkt, agentOrigin: delegation.agentOrigin };
    const token = await issueAccessToken(
      { registrationId: delegation.registrationId, delegationId: delegation.id, memberId: delegation.memberId, scope: delegation.scope, grant: "jwt-bearer", binding },
      clock,
    );
    return { ok: true, token } as const;
  });
}
