// Server-provided DPoP nonces (RFC 9449 §8), used for one thing: to rescue a proof whose `iat` is outside the window
// (a client with a wrong clock). Such a proof is refused with `use_dpop_nonce` and a `DPoP-Nonce`; a proof that
// carries a nonce of ours still valid is fresh whatever its `iat` says. A client whose clock is right never sees one
// (the decision and its figures: content/docs/dpop.md, bench/README.md).
//
// Nothing is stored: a nonce is its time slot and an HMAC of it under a key every instance derives from AUTH_SECRET,
// so any instance checks what another issued. A nonce is issued for the current slot and accepted for that slot and
// the next, so it lives between one and two slots.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/** Seconds of one nonce slot: a nonce lives between 5 and 10 minutes. */
export const NONCE_SLOT_SECONDS = 300;

export interface NonceIssuer {
  /** The nonce to hand out now. */
  current(nowSeconds: number): string;
  /** When a nonce of ours stops being accepted (epoch seconds), or null if it is not ours or no longer accepted. */
  acceptedUntil(nonce: string, nowSeconds: number): number | null;
}

const NONCE_SYNTAX = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/;

/** The nonce issuer of a deployment secret (AUTH_SECRET): its own key, derived with HKDF-SHA256. */
export function nonceIssuer(secret: string): NonceIssuer {
  const key = Buffer.from(hkdfSync("sha256", secret, "agent-gate", "dpop-nonce", 32));
  const mac = (slot: number): Buffer => createHmac("sha256", key).update(`dpop-nonce ${slot}`).digest().subarray(0, 16);
  const nonceOf = (slot: number): string => `${slot.toString(36)}.${mac(slot).toString("base64url")}`;
  const slotOf = (nowSeconds: number): number => Math.floor(nowSeconds / NONCE_SLOT_SECONDS);
  return {
    current: (nowSeconds) => nonceOf(slotOf(nowSeconds)),
    acceptedUntil(nonce, nowSeconds) {
      const match = NONCE_SYNTAX.exec(nonce);
      if (!match) return null;
      const slot = Number.parseInt(match[1]!, 36);
      const now = slotOf(nowSeconds);
      if (slot !== now && slot !== now - 1) return null;
      if (!timingSafeEqual(Buffer.from(match[2]!, "base64url"), mac(slot))) return null;
      return (slot + 2) * NONCE_SLOT_SECONDS;
    },
  };
}
