// DPoP proofs (RFC 9449 §4.3; issue 52): one compact JWS in the request's DPoP header, verified by jose (jwtVerify
// with EmbeddedJWK: the key is the proof's own `jwk`), never by hand. This module sets the policy: the algorithm
// allow-list, `typ`, a public `jwk` of the algorithm's curve, `htm` and `htu` against the request, `iat` within a
// short window (or a server nonce still valid, ./nonce.ts), `ath` on resource requests, and `jti` accepted once,
// through the injected replay check. It is pure but for its dependencies: the clock, the replay check, the nonces.
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  EmbeddedJWK,
  errors as joseErrors,
  jwtVerify,
  type CryptoKey,
  type FlattenedJWSInput,
  type JWTHeaderParameters,
  type JWTPayload,
} from "jose";
import type { Clock } from "@/lib/clock";
import { sha256 } from "@/lib/crypto/secrets";
import { DPOP_ALGORITHMS } from "@/lib/schemas/service-auth";
import { normalizeHtu } from "./htu";
import type { NonceIssuer } from "./nonce";

export const DPOP_PROOF_TYPE = "dpop+jwt";
/** Seconds a proof's `iat` may lie behind the server's clock, and ahead of it (a client's clock a little fast). */
export const IAT_MAX_AGE_SECONDS = 60;
export const IAT_MAX_LEAD_SECONDS = 10;
/** Longer than any proof a client makes (an ES256 proof is about 600 characters): anything longer is refused unread. */
export const MAX_PROOF_LENGTH = 4096;
const MAX_JTI_LENGTH = 256;

/**
 * "Accept this key once until T": true the first time `key` is seen, false while it is kept (until `untilEpochSeconds`).
 * The replay check of every instance must share one (lib/dpop/index.ts wires it).
 */
export type AcceptOnce = (key: string, untilEpochSeconds: number) => Promise<boolean>;

export interface ProofDependencies {
  clock: Clock;
  acceptOnce: AcceptOnce;
  /** The server's nonces, loaded only when a proof needs one (it carries a nonce, or its iat is outside the window). */
  nonces(): Promise<NonceIssuer>;
}

export interface ProofRequest {
  /** The DPoP header's value as received (a repeated header arrives joined with ", "). */
  proof: string;
  method: string;
  /** The URL as the client addressed it: this service's BASE_URL and the request's path. */
  url: string;
  /** The access token the request presents (resource requests): the proof's `ath` must be its hash. */
  accessToken?: string;
}

export type ProofOutcome =
  | { ok: true; jkt: string }
  /** invalid_dpop_proof: refused, with why (never an echo of the input). */
  | { ok: false; error: "invalid_dpop_proof"; detail: string }
  /** use_dpop_nonce: the proof is stale by its iat and carries no valid nonce of ours; retry with `nonce`. */
  | { ok: false; error: "use_dpop_nonce"; detail: string; nonce: string };

class ProofRefusal extends Error {}

const refuse = (detail: string): never => {
  throw new ProofRefusal(detail);
};

// The signature part may be empty here (alg "none"), so the refusal names the algorithm.
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The curve each allowed algorithm's key must be on. */
const KEY_TYPES: Record<(typeof DPOP_ALGORITHMS)[number], { kty: string; crv: string }> = {
  ES256: { kty: "EC", crv: "P-256" },
  EdDSA: { kty: "OKP", crv: "Ed25519" },
  Ed25519: { kty: "OKP", crv: "Ed25519" },
};

/** Members that belong to a private or symmetric key only (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

const isAllowedAlgorithm = (alg: unknown): alg is (typeof DPOP_ALGORITHMS)[number] => typeof alg === "string" && (DPOP_ALGORITHMS as readonly string[]).includes(alg);

/** The header checks that need no key: a refusal here costs no signature verification. */
function checkHeader(proof: string): void {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return refuse("the DPoP header is not a JWS with a JSON protected header");
  }
  if (!isAllowedAlgorithm(header.alg)) refuse(`the proof's alg must be one of ${DPOP_ALGORITHMS.join(", ")}`);
  const jwk = header.jwk;
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) return refuse("the proof's jwk must be a JSON object");
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) refuse("the proof's jwk must hold a public key only");
  const expected = KEY_TYPES[header.alg as (typeof DPOP_ALGORITHMS)[number]];
  if (jwk.kty !== expected.kty || jwk.crv !== expected.crv) refuse(`a ${String(header.alg)} proof's jwk must be a ${expected.kty} key on ${expected.crv}`);
}

interface ProofKey {
  key: CryptoKey;
  /** Its RFC 7638 thumbprint: what tokens are bound to. */
  jkt: string;
}

/**
 * The keys proofs carried, imported by EmbeddedJWK with their thumbprints, by algorithm and exact JWK: an agent signs
 * every proof with one key, and importing it (WebCrypto) and hashing it again for each request cost as much as the
 * signature check (bench/README.md). The import is a function of those two alone. Bounded; the least recently used go.
 */
const PROOF_KEYS = new Map<string, Promise<ProofKey>>();
const MAX_PROOF_KEYS = 10_000;

function proofKeyOf(header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<ProofKey> {
  const id = `${header.alg} ${JSON.stringify(header.jwk)}`;
  let entry = PROOF_KEYS.get(id);
  if (entry) PROOF_KEYS.delete(id);
  else {
    entry = EmbeddedJWK(header, token).then(async (key) => ({ key, jkt: await calculateJwkThumbprint(header.jwk!, "sha256") }));
    // A JWK that does not import is not kept: the next proof with it is refused the same way, by EmbeddedJWK.
    entry.catch(() => PROOF_KEYS.delete(id));
    if (PROOF_KEYS.size >= MAX_PROOF_KEYS) PROOF_KEYS.delete(PROOF_KEYS.keys().next().value!);
  }
  PROOF_KEYS.set(id, entry);
  return entry;
}

async function verifiedPayload(proof: string, now: Date): Promise<{ payload: JWTPayload; jkt: string }> {
  try {
    let jkt = "";
    const { payload } = await jwtVerify(
      proof,
      async (header, token) => {
        const proofKey = await proofKeyOf(header, token);
        jkt = proofKey.jkt;
        return proofKey.key;
      },
      { algorithms: [...DPOP_ALGORITHMS], typ: DPOP_PROOF_TYPE, currentDate: now, requiredClaims: ["jti", "htm", "htu", "iat"] },
    );
    return { payload, jkt };
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) return refuse("the proof's signature does not verify with its jwk");
    if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "typ") return refuse(`the proof's typ must be ${DPOP_PROOF_TYPE}`);
    if (error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired) return refuse(`the proof's ${error.claim} claim is missing or invalid`);
    // WebCrypto refuses unusable key data with a DOMException (DataError), jose and JSON parsing with their own errors.
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError || error instanceof SyntaxError || error instanceof DOMException)
      return refuse("the proof is not a well-formed signed JWT with a usable jwk");
    throw error;
  }
}

function stringClaim(payload: JWTPayload, name: string): string {
  const value = payload[name];
  return typeof value === "string" ? value : refuse(`the proof's ${name} claim must be a string`);
}

/**
 * When the proof stops being acceptable (epoch seconds: its replay entry is kept until then), or a nonce refusal when
 * it is stale: fresh by its iat (IAT_MAX_AGE_SECONDS behind to IAT_MAX_LEAD_SECONDS ahead), or by a nonce of ours.
 */
async function freshUntil(payload: JWTPayload, nowSeconds: number, deps: ProofDependencies): Promise<number | { nonce: string }> {
  const iat = payload.iat!;
  const byIat = iat >= nowSeconds - IAT_MAX_AGE_SECONDS && iat <= nowSeconds + IAT_MAX_LEAD_SECONDS ? iat + IAT_MAX_AGE_SECONDS : null;
  const claimed = payload.nonce;
  if (claimed !== undefined && typeof claimed !== "string") refuse("the proof's nonce claim must be a string");
  const byNonce = typeof claimed === "string" ? (await deps.nonces()).acceptedUntil(claimed, nowSeconds) : null;
  if (byIat === null && byNonce === null) return { nonce: (await deps.nonces()).current(nowSeconds) };
  return Math.max(byIat ?? 0, byNonce ?? 0);
}

async function verifyOrRefuse(request: ProofRequest, deps: ProofDependencies): Promise<ProofOutcome> {
  const { proof } = request;
  if (proof.length > MAX_PROOF_LENGTH) refuse(`the DPoP header is longer than ${MAX_PROOF_LENGTH} characters`);
  // A repeated DPoP header arrives joined with ", ": one proof per request (RFC 9449 §4.3, check 1).
  if (!COMPACT_JWS.test(proof)) refuse("send exactly one DPoP header holding one compact JWS");
  checkHeader(proof);
  const now = deps.clock.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const { payload, jkt } = await verifiedPayload(proof, now);
  const jti = stringClaim(payload, "jti");
  if (jti.length === 0 || jti.length > MAX_JTI_LENGTH) refuse(`the proof's jti must be 1 to ${MAX_JTI_LENGTH} characters`);
  if (stringClaim(payload, "htm") !== request.method) refuse("the proof's htm is not this request's method");
  const htu = normalizeHtu(stringClaim(payload, "htu"));
  if (htu === null || htu !== normalizeHtu(request.url)) refuse("the proof's htu is not this request's URI");
  if (request.accessToken !== undefined && payload.ath !== sha256(request.accessToken)) refuse("the proof's ath is not the hash of this request's access token");
  const until = await freshUntil(payload, nowSeconds, deps);
  if (typeof until !== "number")
    return { ok: false, error: "use_dpop_nonce", detail: "the proof's iat is outside the accepted window; retry with the DPoP-Nonce of this answer", nonce: until.nonce };
  // Last, once everything else holds: a proof that fails a check never uses up its jti.
  if (!(await deps.acceptOnce(sha256(`${jkt}.${jti}`), until))) refuse("the proof's jti was already used");
  return { ok: true, jkt };
}

/** Verifies one DPoP proof against its request; never throws for anything the proof holds. */
export async function verifyDpopProof(request: ProofRequest, deps: ProofDependencies): Promise<ProofOutcome> {
  try {
    return await verifyOrRefuse(request, deps);
  } catch (error) {
    if (error instanceof ProofRefusal) return { ok: false, error: "invalid_dpop_proof", detail: error.message };
    throw error;
  }
}
