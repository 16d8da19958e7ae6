// RELEASE_MODE=private (CONTRACT.md §7): authorization discovery answers the JSON 404 and challenges
// omit resource_metadata; the flow itself keeps working.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../support/server";
import { approvedTokens, startAuthServer, useServerDatabase } from "../support/agent-auth";

let server: TestServer;
let base = "";

beforeAll(async () => {
  server = await startAuthServer({ RELEASE_MODE: "private" });
  base = server.baseUrl;
  useServerDatabase(server.databaseUrl);
});
afterAll(async () => {
  await server?.stop();
});

describe("private release mode", () => {
  for (const path of ["/.well-known/oauth-protected-resource/api", "/.well-known/oauth-authorization-server", "/.well-known/jwks.json", "/.well-known/openid-configuration"]) {
    for (const method of ["GET", "HEAD", "POST"]) {
      it(`${method} ${path} → JSON 404`, async () => {
        const res = await fetch(`${base}${path}`, { method });
        expect(res.status).toBe(404);
        expect(res.headers.get("content-type")).toBe("application/json");
        if (method !== "HEAD") expect(await res.json()).toEqual({ error: "not_found", error_description: expect.any(String) });
      });
    }
  }

  it("the credential-free surface document is still served", async () => {
    const res = await fetch(`${base}/.well-known/oauth-protected-resource`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: base, scopes_supported: [], bearer_methods_supported: [] });
  });

  it("challenges omit resource_metadata", async () => {
    const none = await fetch(`${base}/api/v1/agent/account`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="localhost"');
    const invalid = await fetch(`${base}/api/v1/agent/registrations`, { headers: { Authorization: `Bearer aca_${"w".repeat(43)}` } });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get("www-authenticate")).toBe('Bearer realm="localhost", error="invalid_token"');
    const malformed = await fetch(`${base}/api/v1/agent/account?x=1`);
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("www-authenticate")).toBe('Bearer realm="localhost", error="invalid_request"');
  });

  it("the flow works: tokens read the own-account routes; 403 omits resource_metadata", async () => {
    const { tokens } = await approvedTokens(base, { scopes: ["agent.account.read"] });
    expect((await fetch(`${base}/api/v1/agent/account`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
    const forbidden = await fetch(`${base}/api/v1/agent/registrations`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("www-authenticate")).toBe('Bearer realm="localhost", error="insufficient_scope", scope="agent.registrations.read"');
  });
});
