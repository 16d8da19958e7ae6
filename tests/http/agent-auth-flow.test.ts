// The service_auth flow over HTTP against `next start`: every error code of SPEC.md's error table, exact
// response objects and headers (CONTRACT.md §2–6). Time is moved by editing stored expiries in the
// server's database (the 600 s / 3600 s / 24 h rows themselves are unit-tested with a ManualClock).
import { describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import {
  CLAIM_GRANT,
  JWT_BEARER_GRANT,
  approveAs,
  approvedTokens,
  attemptTokenOf,
  freshIp,
  newMember,
  poll,
  postForm,
  postJson,
  register,
  useAuthServer,
  type RegistrationJson,
} from "../support/agent-auth";
import {
  claimGrantTokenResponseSchema,
  claimRefreshResponseSchema,
  jwtBearerTokenResponseSchema,
  ownAccountResponseSchema,
  ownRegistrationsResponseSchema,
  registrationResponseSchema,
} from "@/lib/schemas/service-auth";

let base = "";

useAuthServer((url) => {
  base = url;
});

async function db() {
  return (await import("@/lib/db/prisma")).getDb();
}

async function expectError(res: Response, status: number, code: string): Promise<{ error: string; error_description: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toEqual({ error: code, error_description: expect.any(String) });
  expect(Object.keys(body)).toEqual(["error", "error_description"]);
  return body as { error: string; error_description: string };
}

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

describe("the whole flow", () => {
  it("register → pending → slow_down → approve → tokens → both routes → exchange → revoke → 401", async () => {
    const email = await newMember();
    const ip = freshIp();
    const regRes = await postJson(base, "/agent/identity", { type: "service_auth", login_hint: email.toUpperCase(), client_name: "Flow Agent" }, ip);
    expect(regRes.status).toBe(200);
    expect(regRes.headers.get("cache-control")).toBe("no-store");
    const reg = registrationResponseSchema.strict().parse(await regRes.json());
    expect(reg.registration_type).toBe("service_auth");
    expect(reg.claim_url).toBe(`${base}/agent/identity/claim`);
    expect(reg.claim.verification_uri).toMatch(new RegExp(`^${base}/agent/authorize\\?claim_attempt_token=cat_[A-Za-z0-9_-]{43}$`));
    expect(reg.claim).toMatchObject({ expires_in: 600, interval: 5 });
    expect(reg.post_claim_scopes).toEqual(["agent.account.read", "agent.registrations.read"]);
    const claimExpires = Date.parse(reg.claim_token_expires);
    expect(Math.abs(claimExpires - Date.now() - 24 * 3600 * 1000)).toBeLessThan(60_000);

    const pending = await poll(base, reg.claim_token);
    expect(pending.headers.get("pragma")).toBe("no-cache");
    await expectError(pending, 400, "authorization_pending");
    const tooFast = await poll(base, reg.claim_token);
    expect(tooFast.headers.get("retry-after")).toBe("10");
    await expectError(tooFast, 400, "slow_down");

    expect(await approveAs(reg as RegistrationJson, email)).toBe("approved");
    // Still too fast after approval (the remembered interval is now 10 s): slow_down, Retry-After 15.
    const stillFast = await poll(base, reg.claim_token);
    expect(stillFast.headers.get("retry-after")).toBe("15");
    await expectError(stillFast, 400, "slow_down");
    // Let the remembered interval pass (move the stored last poll back instead of sleeping).
    await (await db()).claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { lastPolledAt: new Date(Date.now() - 60_000) } });

    const tokenRes = await poll(base, reg.claim_token);
    expect(tokenRes.status).toBe(200);
    expect(tokenRes.headers.get("cache-control")).toBe("no-store");
    expect(tokenRes.headers.get("pragma")).toBe("no-cache");
    const tokens = claimGrantTokenResponseSchema.strict().parse(await tokenRes.json());
    expect(tokens.scope).toBe("agent.account.read agent.registrations.read");
    const claims = decodeJwt(tokens.identity_assertion);
    expect(claims).toMatchObject({ iss: base, aud: base, registration_id: reg.registration_id, client_name: "Flow Agent" });
    expect(new Date(claims.exp! * 1000).toISOString()).toBe(tokens.assertion_expires);

    const account = await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token));
    expect(account.status).toBe(200);
    expect(account.headers.get("cache-control")).toBe("no-store");
    const accountBody = ownAccountResponseSchema.strict().parse(await account.json());
    expect(accountBody).toEqual({
      account_id: claims.sub,
      email,
      email_verified: true,
      authorization: {
        registration_id: reg.registration_id,
        registration_type: "service_auth",
        client_name: "Flow Agent",
        scope: "agent.account.read agent.registrations.read",
        resource: `${base}/api`,
        token_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
    const regs = await fetch(`${base}/api/v1/agent/registrations`, bearer(tokens.access_token));
    expect(regs.status).toBe(200);
    expect(ownRegistrationsResponseSchema.parse(await regs.json())).toEqual({ registrations: [{ id: reg.registration_id, registration_type: "service_auth", status: "active" }] });

    const exchanged = await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource: `${base}/api` });
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get("pragma")).toBe("no-cache");
    const fresh = jwtBearerTokenResponseSchema.parse(await exchanged.json());
    expect(fresh.access_token).not.toBe(tokens.access_token);
    expect((await fetch(`${base}/api/v1/agent/account`, bearer(fresh.access_token))).status).toBe(200);
    // The same assertion can be exchanged again while valid.
    expect((await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource: `${base}/api` })).status).toBe(200);

    const revoked = await postForm(base, "/oauth2/revoke", { token: fresh.access_token, token_type_hint: "access_token" });
    expect(revoked.status).toBe(200);
    expect(await revoked.text()).toBe("");
    const after = await fetch(`${base}/api/v1/agent/account`, bearer(fresh.access_token));
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // Revoking one token leaves the other one working.
    expect((await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token))).status).toBe(200);

    const audit = (await (await db()).auditEvent.findMany({ where: { registrationId: reg.registration_id } })).map((a) => a.type);
    for (const type of ["registration", "approval", "token_issue", "exchange", "revocation"]) expect(audit).toContain(type);
    expect(JSON.stringify(await (await db()).auditEvent.findMany({ where: { registrationId: reg.registration_id } }))).not.toContain(tokens.access_token);
  });

  it("least privilege: a token for agent.registrations.read alone gets 403 insufficient_scope on the account route", async () => {
    const { tokens } = await approvedTokens(base, { scopes: ["agent.registrations.read"] });
    expect(tokens.scope).toBe("agent.registrations.read");
    expect((await fetch(`${base}/api/v1/agent/registrations`, bearer(tokens.access_token))).status).toBe(200);
    const res = await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token));
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="localhost", error="insufficient_scope", scope="agent.account.read"');
  });

  it("a registration without client_name: assertion has no client_name, account shows null", async () => {
    const { tokens } = await approvedTokens(base, { client_name: undefined });
    expect(decodeJwt(tokens.identity_assertion)).not.toHaveProperty("client_name");
    const body = (await (await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token))).json()) as { authorization: { client_name: unknown } };
    expect(body.authorization.client_name).toBeNull();
  });

  it("an unknown e-mail gets a normal 200 registration", async () => {
    const reg = await register(base, `nobody-${Date.now()}@example.com`);
    expect(registrationResponseSchema.parse(reg).registration_type).toBe("service_auth");
  });
});

describe("claim grant errors", () => {
  it("access_denied after the human denies", async () => {
    const email = await newMember();
    const reg = await register(base, email);
    expect(await approveAs(reg, email, "deny")).toBe("denied");
    await expectError(await poll(base, reg.claim_token), 400, "access_denied");
  });

  it("expired_token once the attempt is past its 600 s; refresh then gives a new attempt and the old link closes", async () => {
    const email = await newMember();
    const reg = await register(base, email);
    await (await db()).claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectError(await poll(base, reg.claim_token), 400, "expired_token");
    const refresh = await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email: ` ${email.toUpperCase()} ` });
    expect(refresh.status).toBe(200);
    expect(refresh.headers.get("cache-control")).toBe("no-store");
    const body = claimRefreshResponseSchema.strict().parse(await refresh.json());
    expect(body.registration_id).toBe(reg.registration_id);
    expect(body.status).toBe("initiated");
    expect(body.claim_attempt).toMatchObject({ expires_in: 600, interval: 5 });
    expect(body).not.toHaveProperty("claim_token");
    expect(attemptTokenOf({ claim: body.claim_attempt })).not.toBe(attemptTokenOf(reg));
    expect(await approveAs(reg, email)).toBe("closed");
    // A refresh while the new attempt is open is claimed_or_in_flight (409).
    await expectError(await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email }), 409, "claimed_or_in_flight");
    // Approving the new attempt works, and the poll picks it up.
    const next = { ...reg, claim: body.claim_attempt };
    expect(await approveAs(next, email)).toBe("approved");
    await (await db()).claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { lastPolledAt: null } });
    expect((await poll(base, reg.claim_token)).status).toBe(200);
  });

  it("invalid_grant for an unknown claim token, an expired outer claim and a cancelled delegation", async () => {
    await expectError(await poll(base, `clm_${"x".repeat(43)}`), 400, "invalid_grant");
    await expectError(await poll(base, "anything"), 400, "invalid_grant");

    const email = await newMember();
    const reg = await register(base, email);
    await (await db()).registration.update({ where: { id: reg.registration_id }, data: { claimExpiresAt: new Date(Date.now() - 1000) } });
    await expectError(await poll(base, reg.claim_token), 400, "invalid_grant");
    await expectError(await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email }), 400, "claim_expired");

    const approved = await approvedTokens(base);
    const d = await db();
    // What the member's "Revoke" on /account does (lib/delegations).
    await d.delegation.update({ where: { registrationId: approved.reg.registration_id }, data: { status: "cancelled", cancelledAt: new Date() } });
    await d.registration.update({ where: { id: approved.reg.registration_id }, data: { status: "cancelled" } });
    await d.claimAttempt.updateMany({ where: { registrationId: approved.reg.registration_id }, data: { lastPolledAt: null } });
    await expectError(await poll(base, approved.reg.claim_token), 400, "invalid_grant");
    const exchange = await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: approved.tokens.identity_assertion, resource: `${base}/api` });
    await expectError(exchange, 400, "invalid_grant");
    const read = await fetch(`${base}/api/v1/agent/account`, bearer(approved.tokens.access_token));
    expect(read.status).toBe(401);
  });

  it("an expired access token (3600 s) answers 401 invalid_token", async () => {
    const { tokens, reg } = await approvedTokens(base);
    await (await db()).accessToken.updateMany({ where: { registrationId: reg.registration_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="localhost", error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/api"`);
  });
});

describe("refresh errors", () => {
  it("invalid_claim_token for an unknown token or another e-mail; claimed_or_in_flight while open or after a decision", async () => {
    const email = await newMember();
    const reg = await register(base, email);
    await expectError(await postJson(base, "/agent/identity/claim", { claim_token: `clm_${"y".repeat(43)}`, email }), 400, "invalid_claim_token");
    await expectError(await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email: "someone@example.com" }), 400, "invalid_claim_token");
    await expectError(await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email }), 409, "claimed_or_in_flight");
    await approveAs(reg, email);
    await (await db()).claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectError(await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email }), 409, "claimed_or_in_flight");
  });

  it("another e-mail is invalid_claim_token saying the e-mail does not match (never naming the login hint); the claim still refreshes with the right one", async () => {
    const email = await newMember();
    const reg = await register(base, email);
    await (await db()).claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const wrong = await expectError(await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email: "someone@example.com" }), 400, "invalid_claim_token");
    expect(wrong.error_description).toMatch(/e-mail does not match/);
    expect(wrong.error_description).not.toMatch(/begin a new registration/);
    expect(wrong.error_description.toLowerCase()).not.toContain(email.toLowerCase());
    expect(wrong.error_description).not.toContain(email.split("@")[0]!);
    const unknown = await expectError(await postJson(base, "/agent/identity/claim", { claim_token: `clm_${"y".repeat(43)}`, email }), 400, "invalid_claim_token");
    expect(unknown.error_description).toMatch(/begin a new registration/);
    const refreshed = await postJson(base, "/agent/identity/claim", { claim_token: reg.claim_token, email });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ registration_id: reg.registration_id, status: "initiated" });
  });

  it("strict JSON: unknown members, missing members, wrong types and media types are invalid_request", async () => {
    for (const body of [{ claim_token: "clm_x" }, { claim_token: "clm_x", email: "a@example.com", extra: 1 }, { claim_token: 1, email: "a@example.com" }]) {
      await expectError(await postJson(base, "/agent/identity/claim", body), 400, "invalid_request");
    }
    const text = await fetch(`${base}/agent/identity/claim`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "{}" });
    await expectError(text, 400, "invalid_request");
  });
});

describe("POST /agent/identity request rules", () => {
  const valid = { type: "service_auth", login_hint: "ada@example.com" };
  const invalid: [string, unknown][] = [
    ["an unknown member", { ...valid, redirect_uri: "https://evil.example" }],
    ["a missing type", { login_hint: "ada@example.com" }],
    ["another type", { ...valid, type: "oauth" }],
    ["a missing login_hint", { type: "service_auth" }],
    ["a login_hint that is no e-mail", { ...valid, login_hint: "not an email" }],
    ["a login_hint over 254 characters", { ...valid, login_hint: `${"a".repeat(250)}@example.com` }],
    ["an empty client_name", { ...valid, client_name: "" }],
    ["a client_name of 121 characters", { ...valid, client_name: "a".repeat(121) }],
    ["a client_name with a control character", { ...valid, client_name: "Agent\u0007" }],
    ["a client_name with leading whitespace", { ...valid, client_name: " Agent" }],
    ["a client_name with trailing whitespace", { ...valid, client_name: "Agent " }],
    ["empty scopes", { ...valid, scopes: [] }],
    ["an unknown scope", { ...valid, scopes: ["agent.account.write"] }],
    ["duplicate scopes", { ...valid, scopes: ["agent.account.read", "agent.account.read"] }],
    ["scopes out of canonical order", { ...valid, scopes: ["agent.registrations.read", "agent.account.read"] }],
    ["scopes as a string", { ...valid, scopes: "agent.account.read" }],
    ["an array body", [valid]],
    ["null", null],
  ];
  for (const [name, body] of invalid) {
    it(`refuses ${name} with invalid_request`, async () => {
      await expectError(await postJson(base, "/agent/identity", body), 400, "invalid_request");
    });
  }

  it("accepts a client_name of exactly 120 characters and a single scope", async () => {
    const res = await postJson(base, "/agent/identity", { ...valid, login_hint: `x${Date.now()}@example.com`, client_name: "a".repeat(120), scopes: ["agent.account.read"] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { post_claim_scopes: string[] }).post_claim_scopes).toEqual(["agent.account.read"]);
  });

  it("refuses bodies that are not JSON, not application/json, or over 16 KiB (413)", async () => {
    const send = (body: string, type = "application/json") =>
      fetch(`${base}/agent/identity`, { method: "POST", headers: { "Content-Type": type, "X-Forwarded-For": freshIp() }, body });
    await expectError(await send("{not json"), 400, "invalid_request");
    await expectError(await send(JSON.stringify(valid), "text/plain"), 400, "invalid_request");
    await expectError(await send(new URLSearchParams(valid).toString(), "application/x-www-form-urlencoded"), 400, "invalid_request");
    await expectError(await send(JSON.stringify({ ...valid, client_name: "a".repeat(17 * 1024) })), 413, "invalid_request");
  });

  it("rate limit per client IP: 20 per 10 minutes, then 429 rate_limited with Retry-After", async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      const res = await postJson(base, "/agent/identity", { type: "service_auth", login_hint: `ip-${i}-${Date.now()}@example.com` }, ip);
      expect(res.status).toBe(200);
    }
    const limited = await postJson(base, "/agent/identity", { type: "service_auth", login_hint: `ip-x-${Date.now()}@example.com` }, ip);
    await expectError(limited.clone(), 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(600);
    // Another client IP is not affected.
    expect((await postJson(base, "/agent/identity", { type: "service_auth", login_hint: `ip-y-${Date.now()}@example.com` })).status).toBe(200);
  });

  it("rate limit per normalized login hint: 5 per hour", async () => {
    const hint = `hint-${Date.now()}@example.com`;
    const spellings = [hint, hint.toUpperCase(), ` ${hint}`, `${hint} `, hint];
    for (const spelling of spellings) expect((await postJson(base, "/agent/identity", { type: "service_auth", login_hint: spelling })).status).toBe(200);
    const limited = await postJson(base, "/agent/identity", { type: "service_auth", login_hint: hint });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    await expectError(limited, 429, "rate_limited");
  });
});

describe("POST /oauth2/token request rules", () => {
  it("form-encoded only, duplicates refused, grant_type required, other grants unsupported", async () => {
    const json = await fetch(`${base}/oauth2/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ grant_type: CLAIM_GRANT, claim_token: "x" }),
    });
    await expectError(json, 400, "invalid_request");
    await expectError(await postForm(base, "/oauth2/token", `grant_type=${encodeURIComponent(CLAIM_GRANT)}&claim_token=a&claim_token=b`), 400, "invalid_request");
    await expectError(
      await postForm(base, "/oauth2/token", `grant_type=${encodeURIComponent(CLAIM_GRANT)}&grant_type=${encodeURIComponent(CLAIM_GRANT)}&claim_token=a`),
      400,
      "invalid_request",
    );
    await expectError(await postForm(base, "/oauth2/token", { claim_token: "a" }), 400, "invalid_request");
    await expectError(await postForm(base, "/oauth2/token", { grant_type: CLAIM_GRANT }), 400, "invalid_request");
    await expectError(await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, resource: `${base}/api` }), 400, "invalid_request");
    await expectError(await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: "a.b.c" }), 400, "invalid_request");
    for (const grant of ["authorization_code", "client_credentials", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code", "password"]) {
      const res = await postForm(base, "/oauth2/token", { grant_type: grant, claim_token: "x" });
      expect(res.headers.get("pragma")).toBe("no-cache");
      await expectError(res, 400, "unsupported_grant_type");
    }
  });

  it("unrecognized fields are ignored", async () => {
    await expectError(await postForm(base, "/oauth2/token", { grant_type: CLAIM_GRANT, claim_token: "clm_unknown", client_id: "x", scope: "y" }), 400, "invalid_grant");
  });

  it("JWT-bearer: resource other than exactly {base}/api → invalid_target; a bad assertion → invalid_grant; never an assertion or refresh token", async () => {
    const { tokens } = await approvedTokens(base);
    for (const resource of [base, `${base}/api/`, `${base}/api/v1/agent/account`, "https://evil.example/api", `${base.replace("localhost", "127.0.0.1")}/api`]) {
      await expectError(await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource }), 400, "invalid_target");
    }
    await expectError(
      await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion.slice(0, -4) + "AAAA", resource: `${base}/api` }),
      400,
      "invalid_grant",
    );
    await expectError(await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: tokens.access_token, resource: `${base}/api` }), 400, "invalid_grant");
    const ok = await postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource: `${base}/api` });
    const body = (await ok.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
  });

  it("413 for a form body over 16 KiB", async () => {
    const res = await postForm(base, "/oauth2/token", { grant_type: CLAIM_GRANT, claim_token: "a".repeat(17 * 1024) });
    await expectError(res, 413, "invalid_request");
  });
});

describe("POST /oauth2/revoke", () => {
  it("200 with an empty body for unknown tokens, registration ids and claim tokens; nothing is revoked by them", async () => {
    const { tokens, reg } = await approvedTokens(base);
    for (const token of [`aca_${"z".repeat(43)}`, "whatever", reg.registration_id, reg.claim_token, tokens.identity_assertion]) {
      const res = await postForm(base, "/oauth2/revoke", { token });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.text()).toBe("");
    }
    expect((await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token))).status).toBe(200);
    // Idempotent: twice is fine.
    expect((await postForm(base, "/oauth2/revoke", { token: tokens.access_token })).status).toBe(200);
    expect((await postForm(base, "/oauth2/revoke", { token: tokens.access_token })).status).toBe(200);
    expect((await fetch(`${base}/api/v1/agent/account`, bearer(tokens.access_token))).status).toBe(401);
  });

  it("invalid_request for a missing token, a repeated field or a JSON body", async () => {
    await expectError(await postForm(base, "/oauth2/revoke", { token_type_hint: "access_token" }), 400, "invalid_request");
    await expectError(await postForm(base, "/oauth2/revoke", "token=a&token=b"), 400, "invalid_request");
    const json = await fetch(`${base}/oauth2/revoke`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: "a" }) });
    await expectError(json, 400, "invalid_request");
  });
});

describe("methods", () => {
  for (const path of ["/agent/identity", "/agent/identity/claim", "/oauth2/token", "/oauth2/revoke"]) {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      it(`${method} ${path} → 405 with Allow: POST`, async () => {
        const res = await fetch(`${base}${path}`, { method });
        expect(res.headers.get("allow")).toBe("POST");
        await expectError(res, 405, "method_not_allowed");
      });
    }
  }
});
