// DNS-rebinding guard of the MCP endpoints (/mcp and /mcp/docs both pass through serveMcp).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDnsRebinding, rejectDnsRebinding } from "@/lib/mcp/rebinding";

const LOCAL = "http://localhost:3000";
const PUBLIC = "https://gate.example.com";
const headers = (h: Record<string, string>) => new Headers(h);
const request = (h: Record<string, string>) => new Request("http://localhost:3000/mcp/docs", { method: "POST", headers: h });

describe("isDnsRebinding", () => {
  it("flags an Origin that equals a foreign Host", () => {
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "http://evil.example" }), LOCAL)).toBe(true);
    expect(isDnsRebinding(headers({ host: "evil.example:3000", origin: "http://evil.example:3000" }), LOCAL)).toBe(true);
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "http://evil.example" }), PUBLIC)).toBe(true);
  });

  it("on a loopback-hosted service, flags any non-loopback Host", () => {
    expect(isDnsRebinding(headers({ host: "evil.example.com" }), LOCAL)).toBe(true);
    expect(isDnsRebinding(headers({ host: "internal:8080", origin: "https://app.example" }), LOCAL)).toBe(true);
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "null" }), LOCAL)).toBe(true);
    // A public service is reached under many names (proxies, internal hosts): Host alone proves nothing there.
    expect(isDnsRebinding(headers({ host: "internal:8080" }), PUBLIC)).toBe(false);
  });

  it("lets through server-side callers, our own pages and ordinary cross-origin browsers", () => {
    expect(isDnsRebinding(headers({ host: "localhost:3000" }), LOCAL)).toBe(false);
    expect(isDnsRebinding(headers({ host: "localhost:3000", origin: "http://localhost:3000" }), LOCAL)).toBe(false);
    expect(isDnsRebinding(headers({ host: "localhost:3000", origin: "https://app.example" }), LOCAL)).toBe(false);
    expect(isDnsRebinding(headers({ host: "localhost:3000", origin: "http://evil.example.com" }), LOCAL)).toBe(false);
    expect(isDnsRebinding(headers({ host: "127.0.0.1:3000", origin: "http://localhost:3000" }), LOCAL)).toBe(false);
    expect(isDnsRebinding(headers({ host: "gate.example.com", origin: "https://other.example" }), PUBLIC)).toBe(false);
    expect(isDnsRebinding(headers({ host: "gate.example.com", origin: "https://gate.example.com" }), PUBLIC)).toBe(false);
    expect(isDnsRebinding(headers({ host: "internal:8080", origin: "https://app.example" }), PUBLIC)).toBe(false);
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "null" }), PUBLIC)).toBe(false);
    expect(isDnsRebinding(headers({ host: "evil.example", origin: "not a url" }), PUBLIC)).toBe(false);
  });
});

describe("isDnsRebinding, asked in any order", () => {
  // The base URL and the last Host are parsed once and kept: an answer must not depend on what was asked before.
  const cases: [Record<string, string>, string, boolean][] = [
    [{ host: "evil.example.com" }, LOCAL, true],
    [{ host: "localhost:3000" }, LOCAL, false],
    [{ host: "internal:8080" }, PUBLIC, false],
    [{ host: "evil.example", origin: "http://evil.example" }, PUBLIC, true],
    [{ host: "evil.example" }, "http://127.0.0.1:3000", true],
    [{ host: "127.0.0.1:3000" }, "http://127.0.0.1:3000", false],
    [{ host: "[::1]:3000", origin: "http://[::1]:3000" }, "http://[::1]:3000", false],
    [{ host: "gate.example.com", origin: "https://gate.example.com" }, PUBLIC, false],
  ];

  it("gives each case its own answer however the cases interleave", () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: cases.length - 1 }), { minLength: 1, maxLength: 30 }), (order) => {
        for (const index of order) {
          const [given, baseUrl, expected] = cases[index]!;
          expect(isDnsRebinding(headers(given), baseUrl)).toBe(expected);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("rejectDnsRebinding", () => {
  it("answers a 403 JSON-RPC error for a rebinding request and null otherwise", async () => {
    const refused = rejectDnsRebinding(request({ host: "evil.example.com" }).headers, LOCAL);
    expect(refused?.status).toBe(403);
    expect(JSON.parse(refused?.body ?? "null")).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
    expect(rejectDnsRebinding(request({ host: "localhost:3000", origin: "http://evil.example.com" }).headers, LOCAL)).toBeNull();
    expect(rejectDnsRebinding(request({ host: "gate.example.com", origin: "https://other.example" }).headers, PUBLIC)).toBeNull();
  });
});
