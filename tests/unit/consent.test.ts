// Issue 53's pure parts: the confirmation code (6 CSPRNG digits, kept as an HMAC bound to its attempt, compared in
// constant time, sealed for the browser), the keyed network hash of a caller key, and the approval page's wording.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  confirmationCodeMatches,
  displayConfirmationCode,
  hashConfirmationCode,
  newConfirmationCode,
  openConfirmationCode,
  sealConfirmationCode,
} from "@/lib/consent/confirmation";
import { compareNetworks, networkHash } from "@/lib/consent/network";
import { describeAsked, PHISHING_WARNING } from "@/lib/delegations/wording";
import { checkConfig, configFrom } from "@/lib/config";
import { addressKey, NO_ADDRESS_KEY } from "@/lib/http/client-ip";
import { configureFile, useTestConfig } from "../support/config";

const SECRET = "a-test-auth-secret-of-at-least-32-characters";
configureFile({ AUTH_SECRET: SECRET });

describe("the confirmation code", () => {
  it("is six decimal digits from the CSPRNG, every digit in every place", () => {
    const codes = Array.from({ length: 2000 }, () => newConfirmationCode());
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    for (let place = 0; place < 6; place++) expect(new Set(codes.map((c) => c[place])).size).toBe(10);
    expect(new Set(codes).size).toBeGreaterThan(1990);
  });

  it("is shown as two groups of three digits", () => {
    expect(displayConfirmationCode("417902")).toBe("417 902");
    expect(displayConfirmationCode("000001")).toBe("000 001");
  });

  it("is kept as an HMAC under a derived key, bound to its attempt: never the code, nor its plain SHA-256", async () => {
    const hash = await hashConfirmationCode("attempt-1", "417902");
    expect(hash).not.toContain("417902");
    expect(hash).not.toBe(createHash("sha256").update("417902").digest("base64url"));
    expect(hash).not.toBe(await hashConfirmationCode("attempt-2", "417902"));
    expect(hash).toBe(await hashConfirmationCode("attempt-1", "417902"));
    useTestConfig({ AUTH_SECRET: `${SECRET}-rotated` });
    try {
      expect(await hashConfirmationCode("attempt-1", "417902")).not.toBe(hash);
    } finally {
      useTestConfig();
    }
  });

  it("matches only the right code of the right attempt; spaces and dashes a person adds are ignored", async () => {
    const stored = await hashConfirmationCode("attempt-1", "417902");
    for (const sent of ["417902", "417 902", "417-902", " 417 902 "]) expect(await confirmationCodeMatches("attempt-1", sent, stored), sent).toBe(true);
    for (const sent of ["417903", "41790", "4179020", "", "abcdef", "417902\u0000"]) expect(await confirmationCodeMatches("attempt-1", sent, stored), sent).toBe(false);
    expect(await confirmationCodeMatches("attempt-2", "417902", stored)).toBe(false);
  });

  it("never matches, and never throws, for any other text (full-range strings, lone surrogates)", async () => {
    const stored = await hashConfirmationCode("attempt-1", "417902");
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 40 }), async (sent) => {
        fc.pre(sent.replace(/[\s-]/g, "") !== "417902");
        expect(await confirmationCodeMatches("attempt-1", sent, stored)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("is sealed for the browser that approved: readable only for its attempt and member, and not altered", async () => {
    const sealed = await sealConfirmationCode({ subject: "attempt-hash", memberId: "member-1", code: "417902" });
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("417902");
    expect(await openConfirmationCode(sealed, "attempt-hash", "member-1")).toBe("417902");
    expect(await openConfirmationCode(sealed, "other-attempt", "member-1")).toBeNull();
    expect(await openConfirmationCode(sealed, "attempt-hash", "member-2")).toBeNull();
    const flipped = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}${sealed.slice(-1)}`;
    expect(await openConfirmationCode(flipped, "attempt-hash", "member-1")).toBeNull();
    for (const junk of [undefined, "", "v1.", "v2.abc", "v1.!!!!", "x".repeat(500)]) expect(await openConfirmationCode(junk, "attempt-hash", "member-1")).toBeNull();
    // Two seals of one code differ (a fresh nonce each).
    expect(await sealConfirmationCode({ subject: "attempt-hash", memberId: "member-1", code: "417902" })).not.toBe(sealed);
  });
});

describe("the network hash", () => {
  it("is a keyed hash of the caller key: never the address, never its plain hash, and null when the network is unknown", async () => {
    const key = addressKey("203.0.113.7")!;
    const hash = await networkHash(key);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain("203.0.113");
    expect(hash).not.toBe(createHash("sha256").update(key).digest("base64url"));
    expect(await networkHash(NO_ADDRESS_KEY)).toBeNull();
    expect(await networkHash("agent:https://agent.example")).toBeNull();
  });

  it("compares networks as the caller keys do: an IPv4 address, an IPv6 /64", async () => {
    const request = await networkHash(addressKey("2001:db8:1:2::10")!);
    expect(await compareNetworks(request, addressKey("2001:db8:1:2:ffff::1")!)).toBe("same");
    expect(await compareNetworks(request, addressKey("2001:db8:1:3::10")!)).toBe("different");
    const v4 = await networkHash(addressKey("198.51.100.4")!);
    expect(await compareNetworks(v4, addressKey("::ffff:198.51.100.4")!)).toBe("same");
    expect(await compareNetworks(v4, addressKey("198.51.100.5")!)).toBe("different");
    expect(await compareNetworks(null, addressKey("198.51.100.4")!)).toBe("unknown");
    expect(await compareNetworks(v4, NO_ADDRESS_KEY)).toBe("unknown");
  });

  it("changes with the server's secret, so a hash is only ever compared within one deployment", async () => {
    const key = addressKey("198.51.100.4")!;
    const before = await networkHash(key);
    useTestConfig({ AUTH_SECRET: `${SECRET}-rotated` });
    try {
      expect(await networkHash(key)).not.toBe(before);
    } finally {
      useTestConfig();
    }
  });
});

describe("the approval page's words", () => {
  it("says when a request was made, relative and absolute (UTC)", () => {
    const asked = new Date("2026-11-28T14:03:41.000Z");
    expect(describeAsked(asked, new Date("2026-11-28T14:03:59.000Z"))).toBe("Asked less than a minute ago (14:03 UTC)");
    expect(describeAsked(asked, new Date("2026-11-28T14:04:45.000Z"))).toBe("Asked 1 minute ago (14:03 UTC)");
    expect(describeAsked(asked, new Date("2026-11-28T14:05:41.000Z"))).toBe("Asked 2 minutes ago (14:03 UTC)");
    expect(describeAsked(asked, new Date("2026-11-28T16:05:00.000Z"))).toBe("Asked 2 h ago (14:03 UTC)");
    // A clock a little behind the database's never says "in the future".
    expect(describeAsked(asked, new Date("2026-11-28T14:03:00.000Z"))).toBe("Asked less than a minute ago (14:03 UTC)");
  });

  it("warns that approval links never come by e-mail or message", () => {
    expect(PHISHING_WARNING).toBe("Agent Gate never sends you approval links by e-mail or message. If someone sent you this link, deny it.");
  });
});

describe("the operator's variables", () => {
  it("AGENT_SIGNATURE_REQUIRED: off unless 1; anything but 0 or 1 stops the start", () => {
    expect(configFrom({}).agentSignatureRequired).toBe(false);
    expect(configFrom({ AGENT_SIGNATURE_REQUIRED: "1" }).agentSignatureRequired).toBe(true);
    expect(configFrom({ AGENT_SIGNATURE_REQUIRED: "0" }).agentSignatureRequired).toBe(false);
    const checked = checkConfig({ AGENT_SIGNATURE_REQUIRED: "yes" });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problems.map((p) => p.variable)).toEqual(["AGENT_SIGNATURE_REQUIRED"]);
  });

  it("AGENT_REPORTS_BLOCK_THRESHOLD: 3 unless set, 0 (never) to 1000", () => {
    expect(configFrom({}).agentReportsBlockThreshold).toBe(3);
    expect(configFrom({ AGENT_REPORTS_BLOCK_THRESHOLD: "0" }).agentReportsBlockThreshold).toBe(0);
    expect(configFrom({ AGENT_REPORTS_BLOCK_THRESHOLD: "1000" }).agentReportsBlockThreshold).toBe(1000);
    for (const value of ["1001", "-1", "2.5", "three"]) {
      const checked = checkConfig({ AGENT_REPORTS_BLOCK_THRESHOLD: value });
      expect(checked.ok, value).toBe(false);
      if (!checked.ok) expect(checked.problems).toEqual([{ variable: "AGENT_REPORTS_BLOCK_THRESHOLD", detail: "must be a whole number from 0 to 1000" }]);
    }
  });
});
