// Ed25519 signing keys: SIGNING_KEYS (first signs, all verify) or one key generated locally and kept in
// the database (this module is the SigningKey table's store). kid is the RFC 7638 thumbprint.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from "jose";
import { getConfig } from "@/lib/config";
import { db, isUniqueViolation } from "@/lib/db";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK & { kid: string; alg: "EdDSA"; use: "sig" };
}

export interface KeySet {
  /** Signs new assertions. */
  active: SigningKey;
  /** Every key that still verifies (rotation). */
  all: SigningKey[];
}

function publicPart(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
}

async function toSigningKey(privateJwk: JWK): Promise<SigningKey> {
  const pub = publicPart(privateJwk);
  const kid = await calculateJwkThumbprint(pub, "sha256");
  const privateKey = (await importJWK({ ...privateJwk, alg: "EdDSA" }, "EdDSA")) as CryptoKey;
  return { kid, privateKey, publicJwk: { ...pub, kid, alg: "EdDSA", use: "sig" } };
}

async function oldestStoredKey(): Promise<JWK | null> {
  const rows = await db().query<{ privateJwk: string }>(`SELECT "privateJwk" FROM "SigningKey" ORDER BY "createdAt" ASC, "kid" ASC LIMIT 1`);
  return rows[0] ? (JSON.parse(rows[0].privateJwk) as JWK) : null;
}

async function loadLocalKey(): Promise<JWK> {
  const existing = await oldestStoredKey();
  if (existing) return existing;
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicPart(jwk), "sha256");
  try {
    await db().execute(`INSERT INTO "SigningKey" ("kid", "privateJwk", "publicJwk", "createdAt") VALUES ($1, $2, $3, $4)`, [
      kid,
      JSON.stringify(jwk),
      JSON.stringify(publicPart(jwk)),
      new Date(),
    ]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Another instance may have won the race: always use the oldest stored key.
  const stored = await oldestStoredKey();
  if (!stored) throw new Error("the locally generated signing key was not stored");
  return stored;
}

/** A private Ed25519 JWK in the form SIGNING_KEYS takes, with its kid (the RFC 7638 thumbprint lib/keys publishes). */
export interface ExportedSigningJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d: string;
  kid: string;
}

/**
 * The locally generated key set (the key a start without SIGNING_KEYS signs with), as the value of SIGNING_KEYS,
 * so a rotation can start from a default install (npm run keys:export); null when no key has been generated yet.
 */
export async function exportLocalKeySet(): Promise<ExportedSigningJwk[] | null> {
  const stored = await oldestStoredKey();
  if (!stored) return null;
  if (stored.kty !== "OKP" || stored.crv !== "Ed25519" || !stored.x || !stored.d) throw new Error("the stored signing key is not a private Ed25519 JWK");
  const kid = await calculateJwkThumbprint(publicPart(stored), "sha256");
  return [{ kty: "OKP", crv: "Ed25519", x: stored.x, d: stored.d, kid }];
}

let keySet: Promise<KeySet> | undefined;

export function getKeySet(): Promise<KeySet> {
  keySet ??= (async () => {
    const configured = getConfig().signingKeys;
    const jwks: JWK[] = configured ? configured.map((k) => ({ kty: k.kty, crv: k.crv, x: k.x, d: k.d })) : [await loadLocalKey()];
    const all = await Promise.all(jwks.map(toSigningKey));
    return { active: all[0]!, all };
  })().catch((error: unknown) => {
    keySet = undefined;
    throw error;
  });
  return keySet;
}

/** The public JWKS document. */
export async function publicJwks(): Promise<{ keys: SigningKey["publicJwk"][] }> {
  const { all } = await getKeySet();
  return { keys: all.map((k) => k.publicJwk) };
}
