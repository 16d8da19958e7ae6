// DNS-rebinding detection on /mcp: a page that believes it is same-origin under a foreign host name.
import { describe, expect, it } from "vitest";
import { isDnsRebinding } from "@/lib/mcp/community";

const headers = (h: Record<string, string>) => new Headers(h);

describe("isDnsRebinding (BASE_URL http://localhost:3000)", () => {
  it("flags an Origin that equals a foreign Host", () => {
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "http://evil.example" }))).toBe(true);
    expect(isDnsRebinding(headers({ host: "evil.example:3000", origin: "http://evil.example:3000" }))).toBe(true);
  });

  it("lets through server-side callers, our own pages and ordinary cross-origin browsers", () => {
    expect(isDnsRebinding(headers({ host: "localhost:3000" }))).toBe(false);
    expect(isDnsRebinding(headers({ host: "localhost:3000", origin: "http://localhost:3000" }))).toBe(false);
    expect(isDnsRebinding(headers({ host: "localhost:3000", origin: "https://app.example" }))).toBe(false);
    expect(isDnsRebinding(headers({ host: "internal:8080", origin: "https://app.example" }))).toBe(false);
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "null" }))).toBe(false);
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "not a url" }))).toBe(false);
  });
});
