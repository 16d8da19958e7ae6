// The cache of verified identity assertions: only the validity window decides a hit; bounded, LRU.
import { describe, expect, it } from "vitest";
import { VerifiedAssertionCache } from "@/lib/assertions/verified-cache";

const entry = (claims: string, issuedAt = 1000, expiresAt = 2000) => ({ claims, issuedAt, expiresAt });

describe("VerifiedAssertionCache", () => {
  it("answers a remembered assertion inside its window only", () => {
    const cache = new VerifiedAssertionCache<string>(10);
    cache.remember("a.b.c", entry("claims"));
    expect(cache.get("a.b.c", 1000)).toBe("claims");
    expect(cache.get("a.b.c", 1999)).toBe("claims");
    // Before iat (a clock set back) is a miss, not a stale hit; the entry stays for later.
    expect(cache.get("a.b.c", 999)).toBeNull();
    expect(cache.get("a.b.c", 1500)).toBe("claims");
    // At exp it is gone for good, as jose's check would refuse it (exp <= now).
    expect(cache.get("a.b.c", 2000)).toBeNull();
    expect(cache.size).toBe(0);
    expect(cache.get("a.b.c", 1500)).toBeNull();
  });

  it("never answers for a different string, however close", () => {
    const cache = new VerifiedAssertionCache<string>(10);
    cache.remember("header.payload.signature", entry("claims"));
    for (const other of ["header.payload.signaturX", "header.payload.signature ", "Header.payload.signature", "header.payload"]) {
      expect(cache.get(other, 1500)).toBeNull();
    }
  });

  it("keeps at most its capacity, evicting the least recently used", () => {
    const cache = new VerifiedAssertionCache<string>(3);
    cache.remember("one", entry("1"));
    cache.remember("two", entry("2"));
    cache.remember("three", entry("3"));
    expect(cache.get("one", 1500)).toBe("1"); // "two" is now the least recently used
    cache.remember("four", entry("4"));
    expect(cache.size).toBe(3);
    expect(cache.get("two", 1500)).toBeNull();
    expect(cache.get("one", 1500)).toBe("1");
    expect(cache.get("three", 1500)).toBe("3");
    expect(cache.get("four", 1500)).toBe("4");
  });
});
