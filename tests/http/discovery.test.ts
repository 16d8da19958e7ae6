// Discovery documents in the public release mode (CONTRACT.md §7), against the shared server; a
// spoofed Host or X-Forwarded-Host header changes nothing.
import { describe, expect, inject, it } from "vitest";
import { rawRequest } from "../support/agent-auth";

const base = inject("baseUrl");

async function getJson(path: string): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`);
  return { res, body: (await res.json()) as Record<string, unknown> };
}

function expectDiscoveryHeaders(res: Response): void {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
}

describe("discovery (public mode)", () => {
  it("protected resource metadata of {base}/api", async () => {
    const { res, body } = await getJson("/.well-known/oauth-protected-resource/api");
    expectDiscoveryHeaders(res);
    expect(body).toEqual({
      resource: `${base}/api`,
      authorization_servers: [base],
      scopes_supported: ["agent.account.read", "agent.registrations.read"],
      bearer_methods_supported: ["header"],
      resource_name: expect.any(String),
      resource_documentation: `${base}/auth.md`,
      // Issue 52: DPoP-bound tokens are accepted, Bearer ones remain (RFC 9728 §2).
      dpop_signing_alg_values_supported: ["ES256", "EdDSA", "Ed25519"],
      dpop_bound_access_tokens_required: false,
    });
  });

  it("authorization server metadata", async () => {
    const { res, body } = await getJson("/.well-known/oauth-authorization-server");
    expectDiscoveryHeaders(res);
    expect(body).toEqual({
      issuer: base,
      token_endpoint: `${base}/oauth2/token`,
      revocation_endpoint: `${base}/oauth2/revoke`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: ["urn:vendor:agent-auth:grant-type:claim", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
      scopes_supported: ["agent.account.read", "agent.registrations.read"],
      token_endpoint_auth_methods_supported: ["none"],
      response_types_supported: [],
      service_documentation: `${base}/auth.md`,
      agent_identity_endpoint: `${base}/agent/identity`,
      dpop_signing_alg_values_supported: ["ES256", "EdDSA", "Ed25519"],
    });
  });

  it("JWKS: public Ed25519 keys only, kid = RFC 7638 thumbprint", async () => {
    const { res, body } = await getJson("/.well-known/jwks.json");
    expectDiscoveryHeaders(res);
    const keys = body.keys as Record<string, string>[];
    expect(keys.length).toBeGreaterThanOrEqual(1);
    const { calculateJwkThumbprint } = await import("jose");
    for (const key of keys) {
      expect(key).toEqual({ kty: "OKP", crv: "Ed25519", x: expect.any(String), kid: expect.any(String), alg: "EdDSA", use: "sig" });
      expect(key).not.toHaveProperty("d");
      expect(await calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x }, "sha256")).toBe(key.kid);
    }
  });

  it("the credential-free surface: resource {base}, no scopes, no bearer methods, no authorization servers", async () => {
    const { res, body } = await getJson("/.well-known/oauth-protected-resource");
    expectDiscoveryHeaders(res);
    expect(body).toMatchObject({ resource: base, scopes_supported: [], bearer_methods_supported: [] });
    expect(body).not.toHaveProperty("authorization_servers");
  });

  it("openid-configuration is the JSON 404", async () => {
    const res = await fetch(`${base}/.well-known/openid-configuration`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ error: "not_found", error_description: expect.any(String) });
  });

  it("HEAD works; other methods are 405", async () => {
    const head = await fetch(`${base}/.well-known/oauth-authorization-server`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const post = await fetch(`${base}/.well-known/oauth-authorization-server`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("a spoofed Host or X-Forwarded-Host changes nothing in documents or challenges", async () => {
    const spoof = { Host: "evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" };
    for (const path of ["/.well-known/oauth-protected-resource/api", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource"]) {
      const honest = await (await fetch(`${base}${path}`)).text();
      const spoofed = await rawRequest(`${base}${path}`, { headers: spoof });
      expect(spoofed.status).toBe(200);
      expect(spoofed.body).toBe(honest);
      expect(spoofed.body).not.toContain("evil.example");
    }
    const challenge = await rawRequest(`${base}/api/v1/agent/account`, { headers: spoof });
    expect(challenge.status).toBe(401);
    expect(challenge.headers["www-authenticate"]).toBe(`Bearer realm="localhost", resource_metadata="${base}/.well-known/oauth-protected-resource/api"`);
    const registration = await rawRequest(`${base}/agent/identity`, {
      method: "POST",
      headers: { ...spoof, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "service_auth", login_hint: `spoof-${Date.now()}@example.com` }),
    });
    expect(registration.status).toBe(200);
    const reg = JSON.parse(registration.body) as { claim_url: string; claim: { verification_uri: string } };
    expect(reg.claim_url).toBe(`${base}/agent/identity/claim`);
    expect(reg.claim.verification_uri.startsWith(`${base}/agent/authorize?`)).toBe(true);
  });
});
