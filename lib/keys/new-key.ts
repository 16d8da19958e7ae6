// Key rotation (issue #17 item 7): a new private Ed25519 JWK for SIGNING_KEYS, its kid the RFC 7638
// thumbprint of the public part (what ./index.ts computes and the JWKS publishes).
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";

export interface NewSigningJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d: string;
  kid: string;
}

export async function newSigningJwk(): Promise<NewSigningJwk> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const jwk = await exportJWK(privateKey);
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || !jwk.x || !jwk.d) throw new Error("the runtime did not export an Ed25519 key");
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, "sha256");
  return { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d, kid };
}
