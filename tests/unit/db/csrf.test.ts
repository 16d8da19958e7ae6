import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { createFormToken, FORM_TOKEN_LIFETIME_SECONDS, isSameOriginRequest, verifyFormToken, type FormBinding } from "@/lib/csrf";

const binding: FormBinding = { purpose: "agent-authorize-decision", memberId: "member-1", subject: "attempt-1" };

describe("form tokens", () => {
  it("verify for the same member, purpose and subject only", async () => {
    const clock = new ManualClock();
    const token = await createFormToken(binding, clock);
    expect(await verifyFormToken(binding, token, clock)).toBe(true);
    expect(await verifyFormToken({ ...binding, memberId: "member-2" }, token, clock)).toBe(false);
    expect(await verifyFormToken({ ...binding, subject: "attempt-2" }, token, clock)).toBe(false);
    expect(await verifyFormToken({ ...binding, purpose: "delegation-revoke" }, token, clock)).toBe(false);
  });

  it("refuse missing, malformed, tampered, expired and future tokens", async () => {
    const clock = new ManualClock();
    const token = await createFormToken(binding, clock);
    const [issuedAt, mac] = token.split(".") as [string, string];
    // The MAC's last character is one of 16 (4 bits): replace it with a character it is not.
    const tampered = `${issuedAt}.${mac.slice(0, -1)}${mac.endsWith("A") ? "Q" : "A"}`;
    for (const bad of [null, undefined, "", "abc", `${issuedAt}.`, `.${mac}`, `${Number(issuedAt) + 1}.${mac}`, tampered, `${token}x`, "x".repeat(500)]) {
      expect(await verifyFormToken(binding, bad, clock)).toBe(false);
    }
    clock.advance(FORM_TOKEN_LIFETIME_SECONDS - 1);
    expect(await verifyFormToken(binding, token, clock)).toBe(true);
    clock.advance(2);
    expect(await verifyFormToken(binding, token, clock)).toBe(false);
    const future = await createFormToken(binding, new ManualClock(clock.now().getTime() + 3600_000));
    expect(await verifyFormToken(binding, future, clock)).toBe(false);
  });
});

describe("isSameOriginRequest", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  it("accepts the page's own form POST, including Origin: null under no-referrer", () => {
    expect(isSameOriginRequest(h({ "sec-fetch-site": "same-origin", origin: "null" }))).toBe(true);
    expect(isSameOriginRequest(h({ "sec-fetch-site": "same-origin", origin: "http://localhost:3000" }))).toBe(true);
    expect(isSameOriginRequest(h({}))).toBe(true);
  });
  it("refuses requests the browser marks as cross-site or from another origin", () => {
    expect(isSameOriginRequest(h({ "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOriginRequest(h({ "sec-fetch-site": "same-site" }))).toBe(false);
    expect(isSameOriginRequest(h({ "sec-fetch-site": "none" }))).toBe(false);
    expect(isSameOriginRequest(h({ origin: "https://evil.example" }))).toBe(false);
    expect(isSameOriginRequest(h({ origin: "http://localhost:3001" }))).toBe(false);
  });
});
