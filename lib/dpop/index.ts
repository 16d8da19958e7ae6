// DPoP (RFC 9449; issue 52): the one entry the token endpoint, the registration and the own-account routes call. A
// request without a DPoP header is "none" (and takes exactly the path it took before); otherwise its proof is
// verified (./proof.ts) against the URL the client addressed, which is BASE_URL's and never the Host header's.
import { systemClock, type Clock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import type { ApiRequest } from "@/lib/http/api";
import { getAuthSecret } from "@/lib/local-secrets";
import { acceptOnce } from "@/lib/shared-state";
import { nonceIssuer, type NonceIssuer } from "./nonce";
import { verifyDpopProof, type AcceptOnce, type ProofDependencies } from "./proof";

export type { AcceptOnce } from "./proof";

const DPOP_HEADER = "dpop";

/**
 * A proof's jti is accepted once on the whole deployment, not per instance: lib/shared-state's replay check (Redis,
 * the PostgreSQL database, or this process's memory with SQLite), so a proof replayed on another instance is refused.
 */
function acceptProofOnce(clock: Clock): AcceptOnce {
  return (key, untilEpochSeconds) => acceptOnce("dpop-jti", key, untilEpochSeconds, clock);
}

/** The nonce issuer of this deployment (AUTH_SECRET), made on the first proof that needs a nonce. */
let issuer: Promise<NonceIssuer> | undefined;
function nonces(): Promise<NonceIssuer> {
  issuer ??= getAuthSecret()
    .then(nonceIssuer)
    .catch((error: unknown) => {
      issuer = undefined;
      throw error;
    });
  return issuer;
}

/** The URL the client addressed: this service's base and the request's path (htu ignores the query). */
function addressedUrl(target: string): string {
  const path = target.startsWith("/") ? target : `/${target}`;
  const query = path.indexOf("?");
  return `${getConfig().baseUrl}${query < 0 ? path : path.slice(0, query)}`;
}

export type DpopPresentation =
  | { kind: "none" }
  | { kind: "valid"; jkt: string }
  | { kind: "refused"; error: "invalid_dpop_proof"; detail: string }
  /** Stale by its iat: the answer carries `nonce` in DPoP-Nonce (RFC 9449 §8). */
  | { kind: "refused"; error: "use_dpop_nonce"; detail: string; nonce: string };

/**
 * The request's DPoP proof, verified: none (no DPoP header), valid (the key's RFC 7638 thumbprint), or refused. A
 * resource request passes the access token it presents (the proof's `ath`). Never throws for what a client sent.
 */
export async function dpopProofOf(request: ApiRequest, options: { accessToken?: string } = {}, clock: Clock = systemClock): Promise<DpopPresentation> {
  const proof = request.headers.get(DPOP_HEADER);
  if (proof === null) return { kind: "none" };
  const deps: ProofDependencies = { clock, acceptOnce: acceptProofOnce(clock), nonces };
  const outcome = await verifyDpopProof({ proof, method: request.method, url: addressedUrl(request.target), accessToken: options.accessToken }, deps);
  if (outcome.ok) return { kind: "valid", jkt: outcome.jkt };
  return outcome.error === "use_dpop_nonce"
    ? { kind: "refused", error: outcome.error, detail: outcome.detail, nonce: outcome.nonce }
    : { kind: "refused", error: outcome.error, detail: outcome.detail };
}
