import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseProxyList } from "@/lib/config/schema";
import { CALLER_HEADER, callerKey, deriveCallerKey, NO_ADDRESS_KEY, PEER_HEADER, VERIFIED_AGENT_KEY_PREFIX } from "@/lib/http/client-ip";
import { markServerEntry } from "@/lib/http/server-entry";
import { limitFor, noAddressLimit } from "@/lib/rate-limit/budgets";

// Unless a case says otherwise, the peer header is server.ts's own stamp (its listener replaced any client copy).
markServerEntry();

const h = (init: Record<string, string>) => new Headers(init);
/** A hop count whose nearest proxy is the 10.0.0.1 these cases use as the socket peer. */
const hopsPolicy = (hops: number, proxies: readonly string[] = ["10.0.0.1/32"]) => ({ kind: "hops" as const, hops, proxies });

describe("callerKey by TRUSTED_PROXY policy", () => {
  it("none: the socket address, whatever X-Forwarded-For says", () => {
    expect(callerKey(h({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": "1.2.3.4" }), { kind: "none" })).toBe("203.0.113.9");
    expect(callerKey(h({ [PEER_HEADER]: "::ffff:127.0.0.1" }), { kind: "none" })).toBe("127.0.0.1");
  });
  it("vercel: Vercel's forwarded header", () => {
    expect(callerKey(h({ "x-vercel-forwarded-for": "198.51.100.7", "x-forwarded-for": "1.2.3.4", [PEER_HEADER]: "10.0.0.1" }), { kind: "vercel" })).toBe("198.51.100.7");
  });
  it("hops: the address before N trusted proxies", () => {
    const headers = h({ "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.2", [PEER_HEADER]: "10.0.0.1" });
    expect(callerKey(headers, hopsPolicy(1))).toBe("10.0.0.2");
    expect(callerKey(headers, hopsPolicy(2))).toBe("198.51.100.7");
    // A client cannot pick its bucket by prepending entries: only the untrusted leftmost ones change.
    expect(callerKey(h({ "x-forwarded-for": "1.1.1.1, 2.2.2.2, 198.51.100.7", [PEER_HEADER]: "10.0.0.1" }), hopsPolicy(1))).toBe("198.51.100.7");
  });
  it("always answers a bounded string (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.integer({ min: 1, max: 99 }), (xff, peer, hops) => {
        for (const policy of [{ kind: "none" as const }, { kind: "vercel" as const }, hopsPolicy(hops)]) {
          const headers = new Headers();
          try {
            headers.set("x-forwarded-for", xff);
            headers.set(PEER_HEADER, peer);
          } catch {
            return; // not a valid header value: a real request cannot carry it
          }
          const ip = callerKey(headers, policy);
          expect(typeof ip).toBe("string");
          expect(ip.length).toBeLessThanOrEqual(Math.max(64, peer.length));
        }
      }),
    );
  });
});

describe("a peer header nobody stamped (a bare `next start`, issue 32)", () => {
  it("is ignored: a rotating header is one no-address bucket under none, and hops count X-Forwarded-For alone", () => {
    const keys = new Set(Array.from({ length: 25 }, (_, i) => callerKey(h({ [PEER_HEADER]: `10.77.0.${i}` }), { kind: "none" }, false)));
    expect([...keys]).toEqual([NO_ADDRESS_KEY]);
    // Without the socket, the caller is still the hops-th X-Forwarded-For entry from the right.
    const forwarded = h({ "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.2", [PEER_HEADER]: "10.77.0.1" });
    expect(callerKey(forwarded, hopsPolicy(1), false)).toBe("10.0.0.2");
    expect(callerKey(forwarded, hopsPolicy(2), false)).toBe("198.51.100.7");
    const rotating = new Set(Array.from({ length: 25 }, (_, i) => callerKey(h({ [PEER_HEADER]: `10.77.0.${i}` }), hopsPolicy(1), false)));
    expect([...rotating]).toEqual([NO_ADDRESS_KEY]);
    expect(callerKey(h({ [PEER_HEADER]: "10.77.0.1" }), { kind: "vercel" }, false)).toBe(NO_ADDRESS_KEY);
  });

  it("by default follows the process: stamped once server.ts has marked its entry", () => {
    expect(callerKey(h({ [PEER_HEADER]: "203.0.113.9" }), { kind: "none" })).toBe("203.0.113.9");
  });
});

describe("the caller key stamped by the listener (derived once per request)", () => {
  it("is taken as it is when the listener stamped it, and ignored (derived again) under a bare `next start`", () => {
    const headers = h({ [PEER_HEADER]: "203.0.113.9", [CALLER_HEADER]: "198.51.100.4" });
    expect(callerKey(headers, { kind: "none" }, true)).toBe("198.51.100.4");
    expect(callerKey(headers, { kind: "none" }, false)).toBe(NO_ADDRESS_KEY);
    expect(callerKey(h({ [CALLER_HEADER]: "198.51.100.4", "x-forwarded-for": "192.0.2.1" }), hopsPolicy(1), false)).toBe("192.0.2.1");
  });

  it("an empty stamp (a listener without a caller key) is derived from the addresses", () => {
    expect(callerKey(h({ [PEER_HEADER]: "203.0.113.9", [CALLER_HEADER]: "" }), { kind: "none" }, true)).toBe("203.0.113.9");
  });

  it("deriveCallerKey never reads the stamp: what the listener stamps comes from the addresses alone", () => {
    expect(deriveCallerKey(h({ [PEER_HEADER]: "203.0.113.9", [CALLER_HEADER]: "198.51.100.4" }), { kind: "none" }, true)).toBe("203.0.113.9");
  });
});

describe("callerKey: one key per caller for every per-address limit", () => {
  it("IPv4 is the address; IPv6 is its /64, however it is spelled", () => {
    expect(callerKey(h({ [PEER_HEADER]: "203.0.113.9" }), { kind: "none" })).toBe("203.0.113.9");
    const a = callerKey(h({ [PEER_HEADER]: "2001:db8:1:2:aaaa:bbbb:cccc:dddd" }), { kind: "none" });
    const b = callerKey(h({ [PEER_HEADER]: "2001:0DB8:0001:0002::1" }), { kind: "none" });
    const c = callerKey(h({ [PEER_HEADER]: "[2001:db8:1:2:ffff::9]" }), { kind: "none" });
    expect(a).toBe("2001:db8:1:2::/64");
    expect(b).toBe(a);
    expect(c).toBe(a);
    // The next /64 is another caller.
    expect(callerKey(h({ [PEER_HEADER]: "2001:db8:1:3::1" }), { kind: "none" })).toBe("2001:db8:1:3::/64");
  });

  it("thirty addresses of one /64 are one caller (the issue's registration burst)", () => {
    const keys = new Set(Array.from({ length: 30 }, (_, i) => callerKey(h({ [PEER_HEADER]: `2001:db8:42:7:${(i + 1).toString(16)}::${i}` }), { kind: "none" })));
    expect([...keys]).toEqual(["2001:db8:42:7::/64"]);
  });

  it("IPv4-mapped IPv6 is the IPv4 it maps, in either spelling", () => {
    expect(callerKey(h({ [PEER_HEADER]: "::ffff:198.51.100.7" }), { kind: "none" })).toBe("198.51.100.7");
    expect(callerKey(h({ [PEER_HEADER]: "::ffff:c633:6407" }), { kind: "none" })).toBe("198.51.100.7");
  });

  it("a spoofed X-Forwarded-For never chooses the bucket without a trusted proxy", () => {
    for (const xff of ["1.2.3.4", "2001:db8::1", "1.2.3.4, 5.6.7.8", "garbage"]) {
      expect(callerKey(h({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": xff }), { kind: "none" })).toBe("203.0.113.9");
    }
    // Not even when the peer stamp is missing: the request has no address we trust.
    expect(callerKey(h({ "x-forwarded-for": "1.2.3.4" }), { kind: "none" })).toBe(NO_ADDRESS_KEY);
    // Under Vercel, the platform header decides, whatever X-Forwarded-For says.
    expect(callerKey(h({ "x-vercel-forwarded-for": "2001:db8:5:6::1", "x-forwarded-for": "1.2.3.4" }), { kind: "vercel" })).toBe("2001:db8:5:6::/64");
  });

  it("a request without a usable address shares the one strict no-address bucket", () => {
    expect(callerKey(h({}), { kind: "none" })).toBe(NO_ADDRESS_KEY);
    expect(callerKey(h({ [PEER_HEADER]: "unknown" }), { kind: "none" })).toBe(NO_ADDRESS_KEY);
    expect(callerKey(h({ [PEER_HEADER]: "127.1" }), { kind: "none" })).toBe(NO_ADDRESS_KEY);
    expect(callerKey(h({}), { kind: "vercel" })).toBe(NO_ADDRESS_KEY);
    expect(callerKey(h({}), hopsPolicy(1))).toBe(NO_ADDRESS_KEY);
    expect(noAddressLimit(30)).toBe(3);
    expect(noAddressLimit(5)).toBe(1);
    expect(limitFor({ name: "x", limit: 600, windowSeconds: 60 }, NO_ADDRESS_KEY)).toBe(60);
    expect(limitFor({ name: "x", limit: 600, windowSeconds: 60 }, "203.0.113.9")).toBe(600);
  });

  it("a verified agent's key (agent:<origin>) gets VERIFIED_AGENT_ALLOWANCE_FACTOR times the allowance (default 2)", () => {
    expect(limitFor({ name: "x", limit: 600, windowSeconds: 60 }, `${VERIFIED_AGENT_KEY_PREFIX}https://agent.example`)).toBe(1200);
    // No address key can take the namespace: an address key never starts with it.
    expect(callerKey(h({ [PEER_HEADER]: "agent:https://agent.example" }), { kind: "none" })).toBe(NO_ADDRESS_KEY);
  });

  it("keys an IPv6 caller by its /64", () => {
    expect(callerKey(h({ [PEER_HEADER]: "2001:db8:1:2::5" }), { kind: "none" })).toBe("2001:db8:1:2::/64");
  });

  it("is an IPv4 address, an IPv6 /64 or no-address, for any header values (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), (peer, xff) => {
        const headers = new Headers();
        try {
          headers.set(PEER_HEADER, peer);
          headers.set("x-forwarded-for", xff);
        } catch {
          return;
        }
        const key = callerKey(headers, { kind: "none" });
        expect(key === NO_ADDRESS_KEY || /^\d{1,3}(\.\d{1,3}){3}$/.test(key) || /^[0-9a-f:]+\/64$/.test(key)).toBe(true);
        // X-Forwarded-For never changes the key without a trusted proxy.
        expect(callerKey(new Headers({ [PEER_HEADER]: headers.get(PEER_HEADER) ?? "" }), { kind: "none" })).toBe(key);
      }),
    );
  });
});

describe("X-Forwarded-For is believed only from a configured proxy address (issue 41 item 7)", () => {
  const loopback = parseProxyList("loopback") ?? [];

  it("a hop count: from a loopback proxy the forwarded address, from a direct client its own socket address", () => {
    const policy = hopsPolicy(1, loopback);
    expect(callerKey(h({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("198.51.100.7");
    expect(callerKey(h({ [PEER_HEADER]: "::1", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("198.51.100.7");
    expect(callerKey(h({ [PEER_HEADER]: "::ffff:127.0.0.9", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("198.51.100.7");
    // A client reaching the port directly cannot choose its bucket with a made-up header: every forgery is one key.
    const forged = new Set(Array.from({ length: 20 }, (_, i) => callerKey(h({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": `10.9.${i}.1` }), policy)));
    expect([...forged]).toEqual(["203.0.113.9"]);
    expect(callerKey(h({ [PEER_HEADER]: "2001:db8:7:8::1", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("2001:db8:7:8::/64");
  });

  it("a list: the rightmost address of X-Forwarded-For and the peer that is not a listed proxy", () => {
    const proxies = parseProxyList("loopback, 10.0.0.0/8, 2001:db8:ffff::/48") ?? [];
    const policy = { kind: "proxies" as const, proxies };
    // Two proxies of ours (10.1.2.3, then loopback) in front: the caller is the address before them.
    expect(callerKey(h({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.1.2.3" }), policy)).toBe("198.51.100.7");
    // Prepended entries change nothing.
    expect(callerKey(h({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "1.1.1.1, 2.2.2.2, 198.51.100.7" }), policy)).toBe("198.51.100.7");
    // IPv6 proxies and callers; a caller's IPv6 address is its /64.
    expect(callerKey(h({ [PEER_HEADER]: "2001:db8:ffff:1::5", "x-forwarded-for": "2001:db8:42:7::9" }), policy)).toBe("2001:db8:42:7::/64");
    // A direct client outside the list: its socket address, whatever it forwards.
    expect(callerKey(h({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("203.0.113.9");
    expect(callerKey(h({ [PEER_HEADER]: "2001:db8:fffe::1", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("2001:db8:fffe::/64");
    // Every hop a proxy: the leftmost (as Express); a malformed entry is not a proxy, so it is the caller, with no address.
    expect(callerKey(h({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "10.0.0.5" }), policy)).toBe("10.0.0.5");
    expect(callerKey(h({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "1.2.3.4, garbage" }), policy)).toBe(NO_ADDRESS_KEY);
  });

  it("a single address or CIDR range trusts exactly that", () => {
    const policy = { kind: "proxies" as const, proxies: parseProxyList("192.0.2.10") ?? [] };
    expect(callerKey(h({ [PEER_HEADER]: "192.0.2.10", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("198.51.100.7");
    expect(callerKey(h({ [PEER_HEADER]: "192.0.2.11", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("192.0.2.11");
    // Loopback is not implied by a list that does not name it.
    expect(callerKey(h({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "198.51.100.7" }), policy)).toBe("127.0.0.1");
    const range = hopsPolicy(1, parseProxyList("172.16.0.0/12") ?? []);
    expect(callerKey(h({ [PEER_HEADER]: "172.31.255.1", "x-forwarded-for": "198.51.100.7" }), range)).toBe("198.51.100.7");
    expect(callerKey(h({ [PEER_HEADER]: "172.32.0.1", "x-forwarded-for": "198.51.100.7" }), range)).toBe("172.32.0.1");
  });

  it("parses the list forms: loopback, addresses, CIDRs (normalised to their network), IPv6 and IPv4-mapped", () => {
    expect(parseProxyList("loopback")).toEqual(["127.0.0.0/8", "::1/128"]);
    expect(parseProxyList(" 10.1.2.3/8 , 192.0.2.1, [2001:db8::1], ::ffff:10.0.0.0/104 ")).toEqual(["10.0.0.0/8", "192.0.2.1/32", "2001:db8::1/128"]);
    for (const bad of ["", "none", "127.1", "10.0.0.0/33", "::/129", "10.0.0.0/8/8", "loopback,,", "1", "example.com"]) expect(parseProxyList(bad), bad).toBeUndefined();
  });
});
