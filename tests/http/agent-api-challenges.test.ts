// Own-account routes: the exact RFC 6750 challenges of CONTRACT.md §6 (public release mode), tokens only
// from the Authorization header, no query and no body, GET/HEAD only.
import { describe, expect, it } from "vitest";
import { approvedTokens, rawRequest, useAuthServer, type TokenJson } from "../support/agent-auth";

let base = "";
let tokens: TokenJson;
let metadata = "";

useAuthServer(async (url) => {
  base = url;
  metadata = `${base}/.well-known/oauth-protected-resource/api`;
  tokens = (await approvedTokens(base)).tokens;
});

const NO_CREDENTIAL = () => `Bearer realm="localhost", resource_metadata="${metadata}"`;
const INVALID_TOKEN = () => `Bearer realm="localhost", error="invalid_token", resource_metadata="${metadata}"`;
const INVALID_REQUEST = 'Bearer realm="localhost", error="invalid_request"';

async function expectChallenge(res: Response, status: number, challenge: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("www-authenticate")).toBe(challenge);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toBe("application/json");
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error", "error_description"]);
}

for (const path of ["/api/v1/agent/account", "/api/v1/agent/registrations"]) {
  describe(path, () => {
    it("valid token in the header → 200", async () => {
      const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("www-authenticate")).toBeNull();
    });

    it("the scheme name is case-insensitive", async () => {
      expect((await fetch(`${base}${path}`, { headers: { Authorization: `bearer ${tokens.access_token}` } })).status).toBe(200);
    });

    it("no credential → 401 with realm and resource_metadata, no error code", async () => {
      await expectChallenge(await fetch(`${base}${path}`), 401, NO_CREDENTIAL());
    });

    it("a cookie alone counts as no credential (session or token cookies)", async () => {
      const cookie = `access_token=${tokens.access_token}; next-auth.session-token=abc; __Secure-next-auth.session-token=abc`;
      await expectChallenge(await fetch(`${base}${path}`, { headers: { Cookie: cookie } }), 401, NO_CREDENTIAL());
    });

    it("another scheme (Basic) is no credential", async () => {
      await expectChallenge(await fetch(`${base}${path}`, { headers: { Authorization: "Basic YWRhOnB3" } }), 401, NO_CREDENTIAL());
    });

    it("an unknown, well-formed token → 401 invalid_token", async () => {
      await expectChallenge(await fetch(`${base}${path}`, { headers: { Authorization: `Bearer aca_${"q".repeat(43)}` } }), 401, INVALID_TOKEN());
      await expectChallenge(await fetch(`${base}${path}`, { headers: { Authorization: "Bearer abc.def" } }), 401, INVALID_TOKEN());
    });

    it("the identity assertion is not an access token → 401 invalid_token", async () => {
      await expectChallenge(await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${tokens.identity_assertion}` } }), 401, INVALID_TOKEN());
    });

    it("a malformed Authorization header → 400 invalid_request without resource_metadata", async () => {
      for (const value of ["Bearer", "Bearer ", "Bearer a b", `Bearer ${tokens.access_token}, Bearer ${tokens.access_token}`, 'Bearer tok"en']) {
        await expectChallenge(await fetch(`${base}${path}`, { headers: { Authorization: value } }), 400, INVALID_REQUEST);
      }
    });

    it("a token in the query string is never used; a query parameter gives 400", async () => {
      await expectChallenge(await fetch(`${base}${path}?access_token=${tokens.access_token}`), 400, INVALID_REQUEST);
      await expectChallenge(await fetch(`${base}${path}?x=1`, { headers: { Authorization: `Bearer ${tokens.access_token}` } }), 400, INVALID_REQUEST);
    });

    it("a body (even carrying the token) → 400", async () => {
      const res = await rawRequest(`${base}${path}`, {
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(`access_token=${tokens.access_token}`.length) },
        body: `access_token=${tokens.access_token}`,
      });
      expect(res.status).toBe(400);
      expect(res.headers["www-authenticate"]).toBe(INVALID_REQUEST);
      const withHeader = await rawRequest(`${base}${path}`, { headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Length": "2" }, body: "{}" });
      expect(withHeader.status).toBe(400);
    });

    it("HEAD answers like GET without a body", async () => {
      const ok = await fetch(`${base}${path}`, { method: "HEAD", headers: { Authorization: `Bearer ${tokens.access_token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe("");
      const none = await fetch(`${base}${path}`, { method: "HEAD" });
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe(NO_CREDENTIAL());
    });

    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      it(`${method} → 405 with Allow: GET, HEAD`, async () => {
        const res = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${tokens.access_token}` } });
        expect(res.status).toBe(405);
        expect(res.headers.get("allow")).toBe("GET, HEAD");
        expect(((await res.json()) as { error: string }).error).toBe("method_not_allowed");
      });
    }
  });
}
