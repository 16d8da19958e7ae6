// Identity assertions are re-exchanged many times over their 24 hours (that is what they are for), and
// checking an Ed25519 signature through jose costs more CPU than the rest of an exchange (bench/README.md). A signature check has one answer for one assertion string and one key set, so a successful
// verification is remembered (by the SHA-256 of the assertion, never the assertion itself) until the
// assertion expires. Only time can change the answer: a hit still checks the validity window against the
// clock, and anything outside it goes back to the full check. Delegation state is never cached.
// It always runs: bench/README.md "Speed layers" weighed it against the full check on every exchange (+21 %).
import { sha256 } from "@/lib/crypto/secrets";

export interface CachedVerification<T> {
  claims: T;
  /** Seconds since the epoch: iat (the assertion is not valid before it as far as a hit is concerned) and exp. */
  issuedAt: number;
  expiresAt: number;
}

export class VerifiedAssertionCache<T> {
  private readonly entries = new Map<string, CachedVerification<T>>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The claims of an assertion verified before, if `nowSeconds` is inside its window. */
  get(assertion: string, nowSeconds: number): T | null {
    const key = sha256(assertion);
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (nowSeconds >= entry.expiresAt) {
      this.entries.delete(key);
      return null;
    }
    // Before iat (a clock set back): not a hit; the full check decides.
    if (nowSeconds < entry.issuedAt) return null;
    // Most recently used last, so eviction takes the least recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.claims;
  }

  remember(assertion: string, verification: CachedVerification<T>): void {
    const key = sha256(assertion);
    this.entries.delete(key);
    this.entries.set(key, verification);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
