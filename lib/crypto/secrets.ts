import { createHash, randomFillSync, timingSafeEqual, randomInt } from "node:crypto";

// Secrets take their bytes from a pool filled by one CSPRNG call per 4 KB (128 secrets), as Node's own
// randomUUID does: a call per secret was a measurable share of a token exchange (bench/README.md). Each byte
// is handed out once and zeroed as soon as the secret's text is made; the next fill overwrites the pool.
const SECRET_BYTES = 32;
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** An opaque secret: prefix plus 256 bits of CSPRNG randomness, base64url (CONTRACT.md §3). */
export function newSecret(prefix: "aca_" | "clm_" | "cat_"): string {
  if (poolOffset + SECRET_BYTES > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + SECRET_BYTES);
  poolOffset += SECRET_BYTES;
  const secret = `${prefix}${bytes.toString("base64url")}`;
  bytes.fill(0);
  return secret;
}

/** SHA-256, base64url: how every secret is kept at rest. */
export function sha256(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

/** Constant-time equality of two strings (compares their SHA-256 digests so lengths never leak). */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

/** n decimal digits from a CSPRNG, leading zeros kept. */
export function randomDigits(n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += String(randomInt(0, 10));
  return out;
}
