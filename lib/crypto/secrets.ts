import { createHash, randomBytes, timingSafeEqual, randomInt } from "node:crypto";

/** An opaque secret: prefix plus 256 bits of CSPRNG randomness, base64url (CONTRACT.md §3). */
export function newSecret(prefix: "aca_" | "clm_" | "cat_"): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
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
