import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { webResponse } from "../support/api";
import { useTestConfig } from "../support/config";

/** The error module under a configuration of these variables. */
async function load(variables: Record<string, string>) {
  useTestConfig(variables);
  return import("@/lib/http/errors");
}

describe("error module", () => {
  it("maps every code to CONTRACT.md §2's status", async () => {
    const { ERROR_STATUS } = await load({ BASE_URL: "https://gate.example.com" });
    expect(ERROR_STATUS).toMatchObject({
      invalid_request: 400,
      unsupported_grant_type: 400,
      invalid_target: 400,
      invalid_grant: 400,
      authorization_pending: 400,
      access_denied: 400,
      expired_token: 400,
      slow_down: 400,
      invalid_claim_token: 400,
      claim_expired: 400,
      claimed_or_in_flight: 409,
      invalid_token: 401,
      insufficient_scope: 403,
      not_found: 404,
      method_not_allowed: 405,
      rate_limited: 429,
      temporarily_unavailable: 503,
    });
  });

  it("builds JSON error responses with no-store and the extra headers", async () => {
    const { errorReply } = await load({ BASE_URL: "https://gate.example.com" });
    const errorResponse = (...args: Parameters<typeof errorReply>) => webResponse(errorReply(...args));
    const res = errorResponse("slow_down", "Poll more slowly.", { retryAfter: 10 });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("retry-after")).toBe("10");
    expect(await res.json()).toEqual({ error: "slow_down", error_description: "Poll more slowly." });
    const notAllowed = errorResponse("method_not_allowed", "Only GET.", { allow: ["GET", "HEAD"] });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get("allow")).toBe("GET, HEAD");
    expect((await errorResponse("invalid_request", "Too big.", { status: 413 })).status).toBe(413);
  });

  it("builds the four Bearer challenges of CONTRACT.md §6 in public mode", async () => {
    const { bearerChallenge } = await load({ BASE_URL: "https://gate.example.com:8443", RELEASE_MODE: "public" });
    const m = "https://gate.example.com:8443/.well-known/oauth-protected-resource/api";
    expect(bearerChallenge({ kind: "no_credential" })).toBe(`Bearer realm="gate.example.com", resource_metadata="${m}"`);
    expect(bearerChallenge({ kind: "invalid_token" })).toBe(`Bearer realm="gate.example.com", error="invalid_token", resource_metadata="${m}"`);
    expect(bearerChallenge({ kind: "insufficient_scope", scope: "agent.account.read" })).toBe(
      `Bearer realm="gate.example.com", error="insufficient_scope", scope="agent.account.read"`,
    );
    expect(bearerChallenge({ kind: "invalid_request" })).toBe(`Bearer realm="gate.example.com", error="invalid_request"`);
  });

  it("omits resource_metadata in private mode", async () => {
    const { bearerChallenge } = await load({ BASE_URL: "https://gate.example.com", RELEASE_MODE: "private" });
    expect(bearerChallenge({ kind: "no_credential" })).toBe(`Bearer realm="gate.example.com"`);
    expect(bearerChallenge({ kind: "invalid_token" })).toBe(`Bearer realm="gate.example.com", error="invalid_token"`);
  });

  it("answers challenges with the matching status and a JSON body", async () => {
    const { challengeReply } = await load({ BASE_URL: "https://gate.example.com" });
    const challengeResponse = (...args: Parameters<typeof challengeReply>) => webResponse(challengeReply(...args));
    const cases = [
      [{ kind: "no_credential" }, 401, "invalid_token"],
      [{ kind: "invalid_token" }, 401, "invalid_token"],
      [{ kind: "insufficient_scope", scope: "agent.registrations.read" }, 403, "insufficient_scope"],
      [{ kind: "invalid_request" }, 400, "invalid_request"],
    ] as const;
    for (const [challenge, status, code] of cases) {
      const res = challengeResponse(challenge);
      expect(res.status).toBe(status);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="gate\.example\.com"/);
      expect((await res.json()).error).toBe(code);
    }
  });

  it("keeps any description to one bounded line and never throws (property)", async () => {
    const { errorReply, ERROR_STATUS } = await load({ BASE_URL: "https://gate.example.com" });
    const errorResponse = (...args: Parameters<typeof errorReply>) => webResponse(errorReply(...args));
    const codes = Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...codes),
        fc.string({ maxLength: 2000 }),
        fc.option(fc.integer({ min: 0, max: 100000 }), { nil: undefined }),
        async (code, text, retryAfter) => {
          const res = errorResponse(code, text, { retryAfter });
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(600);
          const body = (await res.json()) as { error: string; error_description?: string };
          expect(body.error).toBe(code);
          if (body.error_description !== undefined) {
            expect(body.error_description).not.toMatch(/[\n\r]/);
            expect(body.error_description.length).toBeLessThanOrEqual(300);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
