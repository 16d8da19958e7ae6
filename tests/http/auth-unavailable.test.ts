// An unreachable database: the auth endpoints answer 503 temporarily_unavailable with Retry-After
// (CONTRACT.md §2), never a stack trace; discovery that needs no database keeps working.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../support/server";
import { CLAIM_GRANT, postForm, postJson, startAuthServer } from "../support/agent-auth";

let server: TestServer;

beforeAll(async () => {
  // Nothing listens on port 1; SIGNING_KEYS avoids the local key kept in the database.
  const key = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
  server = await startAuthServer({ DATABASE_URL: "postgresql://agent:gate@127.0.0.1:1/unreachable", SIGNING_KEYS: JSON.stringify([key]) });
});
afterAll(async () => {
  await server?.stop();
});

describe("database unreachable", () => {
  it("POST /agent/identity, /oauth2/token, /oauth2/revoke and the own-account routes answer 503 with Retry-After", async () => {
    const base = server.baseUrl;
    const responses = [
      await postJson(base, "/agent/identity", { type: "service_auth", login_hint: "ada@example.com" }),
      await postJson(base, "/agent/identity/claim", { claim_token: `clm_${"a".repeat(43)}`, email: "ada@example.com" }),
      await postForm(base, "/oauth2/token", { grant_type: CLAIM_GRANT, claim_token: `clm_${"a".repeat(43)}` }),
      await postForm(base, "/oauth2/revoke", { token: `aca_${"a".repeat(43)}` }),
      await fetch(`${base}/api/v1/agent/account`, { headers: { Authorization: `Bearer aca_${"a".repeat(43)}` } }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await res.json()).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
    }
  });

  it("discovery documents need no database", async () => {
    expect((await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/.well-known/jwks.json`)).status).toBe(200);
  });
});
