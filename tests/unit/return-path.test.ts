import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeReturnPath } from "@/lib/auth/return-path";

const base = "https://gate.example.com";

describe("safeReturnPath (no open redirect)", () => {
  it.each([
    ["/docs", "/docs"],
    ["/agent/authorize?claim_attempt_token=cat_abc", "/agent/authorize?claim_attempt_token=cat_abc"],
    ["https://gate.example.com/account#x", "/account#x"],
  ])("keeps the same-origin path %s", (input, expected) => {
    expect(safeReturnPath(input, base)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "//evil.example/x",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "http://gate.example.com/",
    "https://gate.example.com.evil.example/",
    "/login",
    "",
    "\t//evil.example",
    "/\n/evil.example",
    "data:text/html,hi",
  ])("refuses %j", (input) => {
    expect(safeReturnPath(input, base)).toBe("/account");
  });

  it("never leaves the origin (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.webPath(), fc.constantFrom("//", "/\\", "https://", "javascript:")), (input) => {
        const path = safeReturnPath(input, base);
        expect(path.startsWith("/")).toBe(true);
        expect(path.startsWith("//")).toBe(false);
        expect(new URL(path, base).origin).toBe(base);
      }),
      { numRuns: 2000 },
    );
  });
});
