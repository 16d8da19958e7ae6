// Interop with an independent OAuth client library (oauth4webapi): it discovers the authorization server
// and the protected resource, runs both grants, parses our WWW-Authenticate challenges and revokes a token.
import { describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { CLAIM_GRANT, JWT_BEARER_GRANT, approveAs, newMember, register, useAuthServer } from "../support/agent-auth";

let base = "";
// The test server speaks plain http on localhost; production BASE_URLs are https.
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const client: oauth.Client = { client_id: "interop-agent" };

useAuthServer((url) => {
  base = url;
});

async function challengesOf(promise: Promise<Response>): Promise<oauth.WWWAuthenticateChallenge[]> {
  try {
    const res = await promise;
    throw new Error(`expected a challenge, got ${res.status}`);
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return error.cause;
    throw error;
  }
}

describe("oauth4webapi against Agent Gate", () => {
  it("discovers, polls, reads, exchanges, parses challenges and revokes", async () => {
    const rsResponse = await oauth.resourceDiscoveryRequest(new URL(`${base}/api`), insecure);
    const rs = await oauth.processResourceDiscoveryResponse(new URL(`${base}/api`), rsResponse);
    expect(rs.resource).toBe(`${base}/api`);
    expect(rs.authorization_servers).toEqual([base]);
    expect(rs.bearer_methods_supported).toEqual(["header"]);

    const issuer = new URL(rs.authorization_servers![0]!);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
    expect(as.issuer).toBe(base);
    expect(as.token_endpoint).toBe(`${base}/oauth2/token`);
    expect(as.revocation_endpoint).toBe(`${base}/oauth2/revoke`);
    expect(as.grant_types_supported).toContain(JWT_BEARER_GRANT);

    // No credential (the library always sends one, so its fetch drops the header): realm and resource_metadata, no error code.
    const withoutAuthorization = (url: string, options: oauth.CustomFetchOptions<string, oauth.ProtectedResourceRequestBody>): Promise<Response> => {
      const headers = new Headers(options.headers);
      headers.delete("authorization");
      return fetch(url, { method: options.method, headers, redirect: options.redirect, signal: options.signal });
    };
    const [none] = await challengesOf(
      oauth.protectedResourceRequest("unused", "GET", new URL(`${base}/api/v1/agent/account`), undefined, undefined, { ...insecure, [oauth.customFetch]: withoutAuthorization }),
    );
    expect(none).toEqual({ scheme: "bearer", parameters: { realm: "localhost", resource_metadata: `${base}/.well-known/oauth-protected-resource/api` } });
    // The metadata URL from the challenge leads to the same resource document.
    const fromChallenge = await oauth.processResourceDiscoveryResponse(new URL(`${base}/api`), await fetch(none!.parameters.resource_metadata!));
    expect(fromChallenge.resource).toBe(rs.resource);

    const email = await newMember();
    const reg = await register(base, email);
    const pending = await oauth.genericTokenEndpointRequest(as, client, oauth.None(), CLAIM_GRANT, { claim_token: reg.claim_token }, insecure);
    await expect(oauth.processGenericTokenEndpointResponse(as, client, pending)).rejects.toMatchObject({ error: "authorization_pending" });

    expect(await approveAs(reg, email)).toBe("approved");
    const { getDb } = await import("@/lib/db/prisma");
    await getDb().claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { lastPolledAt: null } });
    const granted = await oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await oauth.genericTokenEndpointRequest(as, client, oauth.None(), CLAIM_GRANT, { claim_token: reg.claim_token }, insecure),
    );
    expect(granted.token_type).toBe("bearer");
    expect(granted.expires_in).toBe(3600);
    const assertion = granted.identity_assertion;
    expect(typeof assertion).toBe("string");

    const read = await oauth.protectedResourceRequest(granted.access_token, "GET", new URL(`${base}/api/v1/agent/account`), undefined, undefined, insecure);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { email: string }).email).toBe(email);

    const exchanged = await oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await oauth.genericTokenEndpointRequest(as, client, oauth.None(), JWT_BEARER_GRANT, { assertion: String(assertion), resource: rs.resource }, insecure),
    );
    expect(exchanged.access_token).not.toBe(granted.access_token);
    expect(exchanged).not.toHaveProperty("refresh_token");
    expect(exchanged).not.toHaveProperty("identity_assertion");

    const wrongTarget = await oauth.genericTokenEndpointRequest(as, client, oauth.None(), JWT_BEARER_GRANT, { assertion: String(assertion), resource: base }, insecure);
    await expect(oauth.processGenericTokenEndpointResponse(as, client, wrongTarget)).rejects.toMatchObject({ error: "invalid_target" });

    // Revoke with the library, then the library parses the invalid_token challenge.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), exchanged.access_token, insecure));
    const [invalid] = await challengesOf(
      oauth.protectedResourceRequest(exchanged.access_token, "GET", new URL(`${base}/api/v1/agent/registrations`), undefined, undefined, insecure),
    );
    expect(invalid).toEqual({
      scheme: "bearer",
      parameters: { realm: "localhost", error: "invalid_token", resource_metadata: `${base}/.well-known/oauth-protected-resource/api` },
    });
    // Revoking again (idempotent) and revoking nonsense are both fine for the library.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), exchanged.access_token, insecure));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), "not-a-token", insecure));

    // insufficient_scope from a narrower delegation, parsed by the library.
    const email2 = await newMember();
    const reg2 = await register(base, email2, { scopes: ["agent.account.read"] });
    await approveAs(reg2, email2);
    const narrow = await oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await oauth.genericTokenEndpointRequest(as, client, oauth.None(), CLAIM_GRANT, { claim_token: reg2.claim_token }, insecure),
    );
    const [scope] = await challengesOf(oauth.protectedResourceRequest(narrow.access_token, "GET", new URL(`${base}/api/v1/agent/registrations`), undefined, undefined, insecure));
    expect(scope).toEqual({ scheme: "bearer", parameters: { realm: "localhost", error: "insufficient_scope", scope: "agent.registrations.read" } });
  });
});
