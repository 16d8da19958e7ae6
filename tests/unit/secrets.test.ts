// lib/crypto/secrets.ts: secrets are CSPRNG bytes in their form, never repeated, uniformly random; hashing and comparison.
import { describe, expect, it } from "vitest";
import { constantTimeEqual, newSecret, sha256 } from "@/lib/crypto/secrets";

describe("newSecret", () => {
  it("is the prefix and 256 bits in base64url", () => {
    for (const prefix of ["aca_", "clm_", "cat_"] as const) {
      const secret = newSecret(prefix);
      expect(secret).toMatch(new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`));
      expect(Buffer.from(secret.slice(4), "base64url")).toHaveLength(32);
    }
  });

  it("never repeats a secret", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) seen.add(newSecret("aca_"));
    expect(seen.size).toBe(2_000);
  });

  it("looks uniformly random: each bit is set in about half of 4,096 secrets", () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 4096; i++) {
      const bytes = Buffer.from(newSecret("clm_").slice(4), "base64url");
      for (let bit = 0; bit < 256; bit++) if (bytes[bit >> 3]! & (1 << (bit & 7))) counts[bit]!++;
    }
    // Binomial(4096, 1/2): mean 2048, sd 32; ±6 sd over 256 bits fails by chance about once in 10^6 runs.
    for (const count of counts) expect(Math.abs(count - 2048)).toBeLessThan(192);
  });
});

describe("sha256 and constantTimeEqual", () => {
  it("hash to base64url and compare by value", () => {
    expect(sha256("abc")).toBe("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    expect(constantTimeEqual("same", "same")).toBe(true);
    expect(constantTimeEqual("same", "different length")).toBe(false);
  });
});
