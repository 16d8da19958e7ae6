import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientIp, PEER_HEADER } from "@/lib/http/client-ip";

const h = (init: Record<string, string>) => new Headers(init);

describe("clientIp by TRUSTED_PROXY policy", () => {
  it("none: the socket address, whatever X-Forwarded-For says", () => {
    expect(clientIp(h({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": "1.2.3.4" }), { kind: "none" })).toBe("203.0.113.9");
    expect(clientIp(h({ [PEER_HEADER]: "::ffff:127.0.0.1" }), { kind: "none" })).toBe("127.0.0.1");
  });
  it("vercel: Vercel's forwarded header", () => {
    expect(clientIp(h({ "x-vercel-forwarded-for": "198.51.100.7", "x-forwarded-for": "1.2.3.4", [PEER_HEADER]: "10.0.0.1" }), { kind: "vercel" })).toBe("198.51.100.7");
  });
  it("hops: the address before N trusted proxies", () => {
    const headers = h({ "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.2", [PEER_HEADER]: "10.0.0.1" });
    expect(clientIp(headers, { kind: "hops", hops: 1 })).toBe("10.0.0.2");
    expect(clientIp(headers, { kind: "hops", hops: 2 })).toBe("198.51.100.7");
    // A client cannot pick its bucket by prepending entries: only the untrusted leftmost ones change.
    expect(clientIp(h({ "x-forwarded-for": "1.1.1.1, 2.2.2.2, 198.51.100.7", [PEER_HEADER]: "10.0.0.1" }), { kind: "hops", hops: 1 })).toBe("198.51.100.7");
  });
  it("always answers a bounded string (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 1, max: 99 }), (xff, peer, hops) => {
        for (const policy of [{ kind: "none" as const }, { kind: "vercel" as const }, { kind: "hops" as const, hops }]) {
          const headers = new Headers();
          try {
            headers.set("x-forwarded-for", xff);
            headers.set(PEER_HEADER, peer);
          } catch {
            return; // not a valid header value: a real request cannot carry it
          }
          const ip = clientIp(headers, policy);
          expect(typeof ip).toBe("string");
          expect(ip.length).toBeLessThanOrEqual(Math.max(64, peer.length));
        }
      }),
    );
  });
});
