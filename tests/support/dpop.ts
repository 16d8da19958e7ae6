// DPoP proofs for tests (issue 52), made by libraries, never by our own code: keys from oauth4webapi's
// generateKeyPair (as an agent makes them), proofs signed by jose's SignJWT with whatever header and claims a case
// needs (a tampered one included). The positive HTTP flows use oauth4webapi's own DPoP handle instead.
import { createHash, randomUUID } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK } from "jose";
import * as oauth from "oauth4webapi";

export type DpopAlgorithm = "ES256" | "EdDSA";

export interface DpopKey {
  alg: DpopAlgorithm;
  keyPair: CryptoKeyPair;
  publicJwk: JWK;
  privateJwk: JWK;
  /** The RFC 7638 thumbprint the server binds tokens to. */
  jkt: string;
}

export async function newDpopKey(alg: DpopAlgorithm = "ES256"): Promise<DpopKey> {
  const keyPair = await oauth.generateKeyPair(alg, { extractable: true });
  const privateJwk = await exportJWK(keyPair.privateKey);
  const { kty, crv, x, y } = await exportJWK(keyPair.publicKey);
  const publicJwk: JWK = y === undefined ? { kty, crv, x } : { kty, crv, x, y };
  return { alg, keyPair, publicJwk, privateJwk, jkt: await calculateJwkThumbprint(publicJwk, "sha256") };
}

/** RFC 9449 §4.2: the base64url SHA-256 of the access token. */
export function athOf(accessToken: string): string {
  return createHash("sha256").update(accessToken, "ascii").digest("base64url");
}

export interface ProofClaims {
  htm: string;
  htu: string;
  /** Seconds since the epoch; default now. */
  iat?: number;
  /** Default a fresh UUID; null leaves it out. */
  jti?: string | null;
  ath?: string;
  nonce?: string;
  [claim: string]: unknown;
}

/** A DPoP proof: header {typ: dpop+jwt, alg, jwk} (each overridable; undefined removes it), the claims, signed by `key`. */
export async function signProof(key: DpopKey, claims: ProofClaims, header: Record<string, unknown> = {}): Promise<string> {
  const { iat, jti, ...rest } = claims;
  const payload: Record<string, unknown> = { ...rest, iat: iat ?? Math.floor(Date.now() / 1000) };
  if (jti !== null) payload.jti = jti ?? randomUUID();
  const protectedHeader: Record<string, unknown> = { typ: "dpop+jwt", alg: key.alg, jwk: key.publicJwk, ...header };
  for (const [name, value] of Object.entries(protectedHeader)) if (value === undefined) delete protectedHeader[name];
  return new SignJWT(payload).setProtectedHeader(protectedHeader as { alg: string }).sign(key.keyPair.privateKey);
}

/** An unsecured JWT (alg "none") with a DPoP header: what a forger without a key would send. */
export function unsignedProof(key: DpopKey, claims: ProofClaims): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const payload = { jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims };
  return `${encode({ typ: "dpop+jwt", alg: "none", jwk: key.publicJwk })}.${encode(payload)}.`;
}

/**
 * One DPoP proof sent twice, to `instances[0]` then to `instances[1]` (the same server in the per-instance test, two
 * instances of one deployment in the fleet test): an own-account read of `path` with a DPoP-bound `accessToken`. The
 * proof names `publicBase` (the BASE_URL the instances share), so only its jti can make the second answer differ.
 */
export async function readTwiceWithOneProof(
  publicBase: string,
  instances: readonly [string, string],
  key: DpopKey,
  accessToken: string,
  path = "/api/v1/agent/account",
): Promise<[Response, Response]> {
  const proof = await signProof(key, { htm: "GET", htu: `${publicBase}${path}`, ath: athOf(accessToken) });
  const read = (base: string) => fetch(`${base}${path}`, { headers: { authorization: `DPoP ${accessToken}`, dpop: proof } });
  const first = await read(instances[0]);
  return [first, await read(instances[1])];
}
