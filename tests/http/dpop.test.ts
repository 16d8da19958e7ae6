// Sender-constrained tokens (issue 52) against the production server, on both databases: oauth4webapi's DPoP
// client (generateKeyPair, the DPoP handle, genericTokenEndpointRequest, protectedResourceRequest,
// isDPoPNonceError) gets bound tokens from both grants and reads with them; a registration with a proof binds the
// whole delegation; every way of using a bound token without its key gets its exact answer and writes nothing; a
// replayed proof is refused; a signed agent's tokens need its signature (Cloudflare's web-bot-auth signer).
import fc from "fast-check";
import { decodeJwt } from "jose";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/prisma";
import {
  approvedTokens,
  approveAs,
  CLAIM_GRANT,
  freshIp,
  JWT_BEARER_GRANT,
  newMember,
  startAuthServer,
  useServerDatabase,
  type RegistrationJson,
  type TokenJson,
} from "../support/agent-auth";
import { athOf, newDpopKey, readTwiceWithOneProof, signProof, unsignedProof, type DpopKey, type ProofClaims } from "../support/dpop";
import type { TestServer } from "../support/server";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";

let server: TestServer;
let base = "";
let as: oauth.AuthorizationServer;
// The test server speaks plain http on localhost; production BASE_URLs are https.
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const client: oauth.Client = { client_id: "dpop-agent" };
const ALGS = `algs="ES256 EdDSA Ed25519"`;

beforeAll(async () => {
  server = await startAuthServer({ AGENT_DIRECTORY_ALLOW_PRIVATE: "1" });
  base = server.baseUrl;
  useServerDatabase(server.databaseUrl);
  const issuer = new URL(base);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
});
afterAll(async () => {
  await server?.stop();
});

// ---------------------------------------------------------------- helpers

/** POST /agent/identity, with a DPoP proof of `key` when given (signed by jose: oauth4webapi makes proofs only for a token endpoint or a resource request). */
async function registerWith(email: string, key?: DpopKey, claims: Partial<ProofClaims> = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", "x-forwarded-for": freshIp() };
  if (key) headers.dpop = await signProof(key, { htm: "POST", htu: `${base}/agent/identity`, ...claims });
  return fetch(`${base}/agent/identity`, { method: "POST", headers, body: JSON.stringify({ type: "service_auth", login_hint: email, client_name: "DPoP Test Agent" }) });
}

async function registered(email: string, key?: DpopKey): Promise<RegistrationJson> {
  const res = await registerWith(email, key);
  expect(res.status).toBe(200);
  return (await res.json()) as RegistrationJson;
}

/** The next poll may come at once (the tests do not wait the interval out). */
async function allowPollNow(reg: RegistrationJson): Promise<void> {
  await getDb().claimAttempt.updateMany({ where: { registrationId: reg.registration_id }, data: { lastPolledAt: null } });
}

/** What a refused request must leave as it was: the registration's tokens, its attempt's pace, its delegation's last use, the audit. */
async function writes(registrationId: string) {
  const db = getDb();
  return {
    tokens: await db.accessToken.count({ where: { registrationId } }),
    lastPolledAt: (await db.claimAttempt.findFirst({ where: { registrationId } }))?.lastPolledAt ?? null,
    lastUsedAt: (await db.delegation.findFirst({ where: { registrationId } }))?.lastUsedAt ?? null,
    audit: await db.auditEvent.count({ where: { registrationId } }),
  };
}

async function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp(), ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const tokenProof = (key: DpopKey, claims: Partial<ProofClaims> = {}, header?: Record<string, unknown>) =>
  signProof(key, { htm: "POST", htu: `${base}/oauth2/token`, ...claims }, header);

const readProof = (key: DpopKey, token: string, path = "/api/v1/agent/account", claims: Partial<ProofClaims> = {}, header?: Record<string, unknown>) =>
  signProof(key, { htm: "GET", htu: `${base}${path}`, ath: athOf(token), ...claims }, header);

async function read(headers: Record<string, string>, path = "/api/v1/agent/account"): Promise<Response> {
  return fetch(`${base}${path}`, { headers });
}

async function expectError(res: Response, status: number, error: string, description?: RegExp): Promise<void> {
  const body = (await res.json()) as { error: string; error_description: string };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toBe(error);
  if (description) expect(body.error_description).toMatch(description);
  expect(res.headers.get("cache-control")).toBe("no-store");
}

async function expectDpopChallenge(res: Response, error: string, description?: RegExp): Promise<void> {
  expect(res.headers.get("www-authenticate")).toBe(`DPoP error="${error}", ${ALGS}`);
  await expectError(res, error === "use_dpop_nonce" || error === "invalid_dpop_proof" || error === "invalid_token" ? 401 : 400, error, description);
}

/** Registered with a proof of `key`, approved, polled with oauth4webapi's handle of the same key: bound tokens. */
async function boundDelegation(key: DpopKey): Promise<{ reg: RegistrationJson; tokens: oauth.TokenEndpointResponse; email: string; handle: oauth.DPoPHandle }> {
  const email = await newMember();
  const reg = await registered(email, key);
  expect(await approveAs(reg, email)).toBe("approved");
  const handle = oauth.DPoP(client, key.keyPair);
  const tokens = await oauth.processGenericTokenEndpointResponse(
    as,
    client,
    await oauth.genericTokenEndpointRequest(as, client, oauth.None(), CLAIM_GRANT, { claim_token: reg.claim_token }, { DPoP: handle, ...insecure }),
  );
  return { reg, tokens, email, handle };
}

// ---------------------------------------------------------------- the positive flow

describe("oauth4webapi's DPoP client, end to end", () => {
  it("discovers the DPoP algorithms in both metadata documents", async () => {
    expect(as.dpop_signing_alg_values_supported).toEqual(["ES256", "EdDSA", "Ed25519"]);
    const resource = new URL(`${base}/api`);
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
    expect(rs.dpop_signing_alg_values_supported).toEqual(["ES256", "EdDSA", "Ed25519"]);
    expect(rs.dpop_bound_access_tokens_required).toBe(false);
  });

  // oauth4webapi signs an Ed25519 key's proofs as "Ed25519" (RFC 9864's name); the registration's proof (jose) says "EdDSA".
  for (const alg of ["ES256", "EdDSA"] as const) {
    it(`${alg} key: registration with a proof, poll, read, exchange, read, revoke`, async () => {
      const key = await newDpopKey(alg);
      const email = await newMember();
      const reg = await registered(email, key);
      expect((await getDb().registration.findUniqueOrThrow({ where: { id: reg.registration_id } })).dpopJkt).toBe(key.jkt);

      const dpop = oauth.DPoP(client, key.keyPair);
      const poll = () => oauth.genericTokenEndpointRequest(as, client, oauth.None(), CLAIM_GRANT, { claim_token: reg.claim_token }, { DPoP: dpop, ...insecure });
      await expect(oauth.processGenericTokenEndpointResponse(as, client, await poll())).rejects.toMatchObject({ error: "authorization_pending" });
      expect(await approveAs(reg, email)).toBe("approved");
      await allowPollNow(reg);
      const granted = await oauth.processGenericTokenEndpointResponse(as, client, await poll());
      expect(granted.token_type).toBe("dpop");
      expect(granted).not.toHaveProperty("agent_origin");
      expect(decodeJwt(String(granted.identity_assertion)).cnf).toEqual({ jkt: key.jkt });
      const stored = await getDb().accessToken.findFirstOrThrow({ where: { registrationId: reg.registration_id } });
      expect(stored).toMatchObject({ dpopJkt: key.jkt, agentOrigin: null });

      for (const path of ["/api/v1/agent/account", "/api/v1/agent/registrations"]) {
        const res = await oauth.protectedResourceRequest(granted.access_token, "GET", new URL(`${base}${path}`), undefined, undefined, { DPoP: dpop, ...insecure });
        expect(res.status).toBe(200);
      }
      const head = await oauth.protectedResourceRequest(granted.access_token, "HEAD", new URL(`${base}/api/v1/agent/account`), undefined, undefined, { DPoP: dpop, ...insecure });
      expect(head.status).toBe(200);
      const account = await oauth.protectedResourceRequest(granted.access_token, "GET", new URL(`${base}/api/v1/agent/account`), undefined, undefined, { DPoP: dpop, ...insecure });
      expect(((await account.json()) as { email: string }).email).toBe(email);

      const exchanged = await oauth.processGenericTokenEndpointResponse(
        as,
        client,
        await oauth.genericTokenEndpointRequest(
          as,
          client,
          oauth.None(),
          JWT_BEARER_GRANT,
          { assertion: String(granted.identity_assertion), resource: `${base}/api` },
          { DPoP: dpop, ...insecure },
        ),
      );
      expect(exchanged.token_type).toBe("dpop");
      expect(exchanged).not.toHaveProperty("identity_assertion");
      const fresh = await oauth.protectedResourceRequest(exchanged.access_token, "GET", new URL(`${base}/api/v1/agent/registrations`), undefined, undefined, {
        DPoP: dpop,
        ...insecure,
      });
      expect(((await fresh.json()) as { registrations: { status: string }[] }).registrations[0]!.status).toBe("active");

      // Revocation (RFC 7009) needs no proof; the library then parses the DPoP challenge.
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), exchanged.access_token, insecure));
      const refused = await oauth
        .protectedResourceRequest(exchanged.access_token, "GET", new URL(`${base}/api/v1/agent/account`), undefined, undefined, { DPoP: dpop, ...insecure })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      expect((refused as oauth.WWWAuthenticateChallengeError).cause).toEqual([{ scheme: "dpop", parameters: { error: "invalid_token", algs: "ES256 EdDSA Ed25519" } }]);
    });
  }

  it("a registration without a proof: a poll with a proof gets a bound token and assertion, a poll without one a Bearer token", async () => {
    const key = await newDpopKey("EdDSA");
    const email = await newMember();
    const reg = await registered(email);
    expect((await getDb().registration.findUniqueOrThrow({ where: { id: reg.registration_id } })).dpopJkt).toBeNull();
    await approveAs(reg, email);
    const dpop = oauth.DPoP(client, key.keyPair);
    const bound = await oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await oauth.genericTokenEndpointRequest(as, client, oauth.None(), CLAIM_GRANT, { claim_token: reg.claim_token }, { DPoP: dpop, ...insecure }),
    );
    expect(bound.token_type).toBe("dpop");
    expect(decodeJwt(String(bound.identity_assertion)).cnf).toEqual({ jkt: key.jkt });
    await allowPollNow(reg);
    const plain = (await (await tokenRequest({ grant_type: CLAIM_GRANT, claim_token: reg.claim_token })).json()) as TokenJson;
    expect(plain.token_type).toBe("Bearer");
    expect(decodeJwt(plain.identity_assertion).cnf).toBeUndefined();
    // The Bearer token works exactly as before; the bound one only with its proof.
    expect((await read({ authorization: `Bearer ${plain.access_token}` })).status).toBe(200);
    await expectDpopChallenge(await read({ authorization: `Bearer ${bound.access_token}` }), "invalid_token", /bound to a DPoP key/);

    // The unbound assertion may be exchanged with a proof (a bound token) or without (a Bearer token).
    const exchange = { grant_type: JWT_BEARER_GRANT, assertion: plain.identity_assertion, resource: `${base}/api` };
    const withProof = await tokenRequest(exchange, { dpop: await tokenProof(key) });
    expect(((await withProof.json()) as TokenJson).token_type).toBe("DPoP");
    expect(((await (await tokenRequest(exchange)).json()) as TokenJson).token_type).toBe("Bearer");
  });
});

// ---------------------------------------------------------------- nobody without the key

describe("nobody without the key: each refusal has its exact answer, and nothing is written", () => {
  let key: DpopKey;
  let other: DpopKey;
  let reg: RegistrationJson;
  let tokens: oauth.TokenEndpointResponse;

  beforeAll(async () => {
    key = await newDpopKey("ES256");
    other = await newDpopKey("ES256");
    ({ reg, tokens } = await boundDelegation(key));
  });

  it("the claim poll of a bound registration", async () => {
    await allowPollNow(reg);
    const before = await writes(reg.registration_id);
    const claim = { grant_type: CLAIM_GRANT, claim_token: reg.claim_token };
    const refusals: [string, () => Promise<Response>, number, string, RegExp][] = [
      ["no proof", () => tokenRequest(claim), 400, "invalid_grant", /bound to a DPoP key .*each claim poll must carry a DPoP proof of the same key/],
      ["another key's proof", async () => tokenRequest(claim, { dpop: await tokenProof(other) }), 400, "invalid_grant", /bound to a DPoP key/],
      ["wrong htm", async () => tokenRequest(claim, { dpop: await tokenProof(key, { htm: "GET" }) }), 400, "invalid_dpop_proof", /htm/],
      ["wrong htu", async () => tokenRequest(claim, { dpop: await tokenProof(key, { htu: `${base}/oauth2/revoke` }) }), 400, "invalid_dpop_proof", /htu/],
      ["alg none", async () => tokenRequest(claim, { dpop: unsignedProof(key, { htm: "POST", htu: `${base}/oauth2/token` }) }), 400, "invalid_dpop_proof", /alg/],
      ["a private key in jwk", async () => tokenRequest(claim, { dpop: await tokenProof(key, {}, { jwk: key.privateJwk }) }), 400, "invalid_dpop_proof", /public key only/],
      ["typ JWT", async () => tokenRequest(claim, { dpop: await tokenProof(key, {}, { typ: "JWT" }) }), 400, "invalid_dpop_proof", /typ/],
    ];
    for (const [name, send, status, error, description] of refusals) {
      const res = await send();
      await expectError(res, status, error, description);
      expect(res.headers.get("pragma"), name).toBe("no-cache");
      expect(res.headers.get("dpop-nonce"), name).toBeNull();
    }
    // Two DPoP headers: one proof per request.
    const twice = new Headers({ "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp() });
    twice.append("dpop", await tokenProof(key));
    twice.append("dpop", await tokenProof(key));
    await expectError(
      await fetch(`${base}/oauth2/token`, { method: "POST", headers: twice, body: new URLSearchParams(claim).toString() }),
      400,
      "invalid_dpop_proof",
      /exactly one DPoP header/,
    );
    // An old iat: use_dpop_nonce, with the nonce to retry with (RFC 9449 §8).
    const stale = await tokenRequest(claim, { dpop: await tokenProof(key, { iat: Math.floor(Date.now() / 1000) - 300 }) });
    expect(stale.headers.get("dpop-nonce")).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    await expectError(stale, 400, "use_dpop_nonce", /iat is outside/);
    expect(await writes(reg.registration_id)).toEqual(before);
  });

  it("a replayed proof at the token endpoint", async () => {
    await allowPollNow(reg);
    const proof = await tokenProof(key);
    const claim = { grant_type: CLAIM_GRANT, claim_token: reg.claim_token };
    expect((await tokenRequest(claim, { dpop: proof })).status).toBe(200);
    const before = await writes(reg.registration_id);
    await allowPollNow(reg);
    const after = await writes(reg.registration_id);
    await expectError(await tokenRequest(claim, { dpop: proof }), 400, "invalid_dpop_proof", /jti was already used/);
    expect(await writes(reg.registration_id)).toEqual(after);
    expect(after.tokens).toBe(before.tokens);
  });

  it("the exchange of a bound assertion", async () => {
    const exchange = { grant_type: JWT_BEARER_GRANT, assertion: String(tokens.identity_assertion), resource: `${base}/api` };
    const before = await writes(reg.registration_id);
    await expectError(await tokenRequest(exchange), 400, "invalid_grant", /assertion is bound to a DPoP key/);
    await expectError(await tokenRequest(exchange, { dpop: await tokenProof(other) }), 400, "invalid_grant", /assertion is bound to a DPoP key/);
    await expectError(await tokenRequest(exchange, { dpop: await tokenProof(key, { htu: `${base}/api` }) }), 400, "invalid_dpop_proof", /htu/);
    expect(await writes(reg.registration_id)).toEqual(before);
    const accepted = await tokenRequest(exchange, { dpop: await tokenProof(key) });
    expect(((await accepted.json()) as TokenJson).token_type).toBe("DPoP");
  });

  it("the own-account read with a bound token", async () => {
    const token = tokens.access_token;
    await getDb().delegation.updateMany({ where: { registrationId: reg.registration_id }, data: { lastUsedAt: null } });
    const before = await writes(reg.registration_id);
    const dpop = async (claims: Partial<ProofClaims> = {}, header?: Record<string, unknown>, by = key) => ({
      authorization: `DPoP ${token}`,
      dpop: await readProof(by, token, undefined, claims, header),
    });
    const cases: [string, () => Promise<Record<string, string>>, string, RegExp][] = [
      ["sent as Bearer", async () => ({ authorization: `Bearer ${token}` }), "invalid_token", /bound to a DPoP key: send it as Authorization: DPoP/],
      ["sent as Bearer with a proof", async () => ({ authorization: `Bearer ${token}`, dpop: await readProof(key, token) }), "invalid_token", /bound to a DPoP key/],
      ["no proof", async () => ({ authorization: `DPoP ${token}` }), "invalid_dpop_proof", /needs a DPoP proof/],
      ["another key", () => dpop({}, undefined, other), "invalid_token", /another key/],
      ["wrong htm", () => dpop({ htm: "POST" }), "invalid_dpop_proof", /htm/],
      ["wrong htu", () => dpop({ htu: `${base}/api/v1/agent/registrations` }), "invalid_dpop_proof", /htu/],
      ["an ath of another token", () => dpop({ ath: athOf(`${token}x`) }), "invalid_dpop_proof", /ath/],
      ["no ath", () => dpop({ ath: undefined }), "invalid_dpop_proof", /ath/],
      [
        "alg none",
        async () => ({ authorization: `DPoP ${token}`, dpop: unsignedProof(key, { htm: "GET", htu: `${base}/api/v1/agent/account`, ath: athOf(token) }) }),
        "invalid_dpop_proof",
        /alg/,
      ],
      ["a private key in jwk", () => dpop({}, { jwk: key.privateJwk }), "invalid_dpop_proof", /public key only/],
    ];
    for (const [name, headers, error, description] of cases) {
      const res = await read(await headers());
      expect(res.headers.get("dpop-nonce"), name).toBeNull();
      await expectDpopChallenge(res, error, description);
    }
    const stale = await read(await dpop({ iat: Math.floor(Date.now() / 1000) - 300 }));
    expect(stale.headers.get("dpop-nonce")).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    await expectDpopChallenge(stale, "use_dpop_nonce", /iat is outside/);
    expect(await writes(reg.registration_id)).toEqual(before);
    expect((await read(await dpop())).status).toBe(200);
    expect((await writes(reg.registration_id)).lastUsedAt).not.toBeNull();
  });

  it("a replayed proof on a read is refused by the instance that accepted it", async () => {
    const [first, second] = await readTwiceWithOneProof(base, [base, base], key, tokens.access_token);
    expect(first.status).toBe(200);
    await expectDpopChallenge(second, "invalid_dpop_proof", /jti was already used/);
  });

  it("a DPoP-scheme read with a Bearer token, and a malformed DPoP credential", async () => {
    const { tokens: plain } = await approvedTokens(base);
    await expectDpopChallenge(
      await read({ authorization: `DPoP ${plain.access_token}`, dpop: await readProof(key, plain.access_token) }),
      "invalid_token",
      /not bound to a DPoP key/,
    );
    await expectDpopChallenge(await read({ authorization: "DPoP a b", dpop: await readProof(key, "a") }), "invalid_request");
    await expectDpopChallenge(
      await read({ authorization: `DPoP aca_${"x".repeat(43)}`, dpop: await readProof(key, `aca_${"x".repeat(43)}`) }),
      "invalid_token",
      /invalid, expired or revoked/,
    );
  });

  it("a registration's refused proof registers nothing", async () => {
    const email = await newMember();
    await expectError(await registerWith(email, key, { htu: `${base}/oauth2/token` }), 400, "invalid_dpop_proof", /^The DPoP proof was not accepted: the proof's htu/);
    const stale = await registerWith(email, key, { iat: 1 });
    expect(stale.headers.get("dpop-nonce")).not.toBeNull();
    await expectError(stale, 400, "use_dpop_nonce");
    expect(await getDb().registration.count({ where: { loginHint: email } })).toBe(0);
  });
});

describe("fast-check: random DPoP headers over HTTP", () => {
  it("never a 500, always CONTRACT.md's body with its code, nothing written, on the token endpoint and a bound read", async () => {
    const key = await newDpopKey("EdDSA");
    const { reg, tokens } = await boundDelegation(key);
    await allowPollNow(reg);
    const before = await writes(reg.registration_id);
    // Header values as fetch can send them (ByteString): Latin-1 text but CR, LF and NUL, trimmed by HTTP.
    const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x20 : c)), maxLength: 300 });
    const jwsLike = fc
      .tuple(fc.jsonValue(), fc.jsonValue(), fc.string({ maxLength: 40 }))
      .map(
        ([h, p, sig]) =>
          `${Buffer.from(JSON.stringify(h)).toString("base64url")}.${Buffer.from(JSON.stringify(p)).toString("base64url")}.${Buffer.from(sig).toString("base64url")}`,
      );
    const value = fc.oneof(headerText, jwsLike).filter((v) => v.trim() !== "");
    await fc.assert(
      fc.asyncProperty(value, fc.boolean(), async (dpop, onRead) => {
        const res = onRead
          ? await read({ authorization: `DPoP ${tokens.access_token}`, dpop })
          : await tokenRequest({ grant_type: CLAIM_GRANT, claim_token: reg.claim_token }, { dpop });
        expect(res.status).toBe(onRead ? 401 : 400);
        const body = (await res.json()) as Record<string, string>;
        expect(Object.keys(body)).toEqual(["error", "error_description"]);
        expect(["invalid_dpop_proof", "use_dpop_nonce"]).toContain(body.error);
      }),
      { numRuns: 120 },
    );
    expect(await writes(reg.registration_id)).toEqual(before);
  });
});

// ---------------------------------------------------------------- server nonces

describe("server nonces, as oauth4webapi handles them", () => {
  it("a client whose clock is 10 minutes slow gets use_dpop_nonce once, retries with isDPoPNonceError, and succeeds", async () => {
    const key = await newDpopKey("ES256");
    const email = await newMember();
    const reg = await registered(email);
    await approveAs(reg, email);
    const slowClient: oauth.Client = { client_id: "slow-clock-agent", [oauth.clockSkew]: -600 };
    const dpop = oauth.DPoP(slowClient, key.keyPair);
    let nonceErrors = 0;
    /** The retry every oauth4webapi DPoP user writes (its README's pattern). */
    async function withNonceRetry<T>(attempt: () => Promise<T>): Promise<T> {
      try {
        return await attempt();
      } catch (error) {
        if (!oauth.isDPoPNonceError(error)) throw error;
        nonceErrors++;
        return attempt();
      }
    }
    const tokens = await withNonceRetry(async () =>
      oauth.processGenericTokenEndpointResponse(
        as,
        slowClient,
        await oauth.genericTokenEndpointRequest(as, slowClient, oauth.None(), CLAIM_GRANT, { claim_token: reg.claim_token }, { DPoP: dpop, ...insecure }),
      ),
    );
    expect(nonceErrors).toBe(1);
    expect(tokens.token_type).toBe("dpop");
    // The handle keeps the nonce for this origin: the read needs no retry.
    const res = await withNonceRetry(() =>
      oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${base}/api/v1/agent/account`), undefined, undefined, { DPoP: dpop, ...insecure }),
    );
    expect(res.status).toBe(200);
    expect(nonceErrors).toBe(1);
    // A fresh handle (no nonce yet) on a read: the 401 challenge carries use_dpop_nonce, and the retry succeeds.
    const fresh = oauth.DPoP(slowClient, key.keyPair);
    const again = await withNonceRetry(() =>
      oauth.protectedResourceRequest(tokens.access_token, "GET", new URL(`${base}/api/v1/agent/registrations`), undefined, undefined, { DPoP: fresh, ...insecure }),
    );
    expect(again.status).toBe(200);
    expect(nonceErrors).toBe(2);
  });
});

// ---------------------------------------------------------------- a signed agent's tokens (Web Bot Auth)

describe("a signed agent's tokens are bound to its keys (web-bot-auth signer)", () => {
  let key: AgentKey;
  let rotated: AgentKey;
  let directory: DirectoryServer;
  let stranger: AgentKey;
  let strangerDirectory: DirectoryServer;

  beforeAll(async () => {
    [key, rotated, stranger] = await Promise.all([newAgentKey(), newAgentKey(), newAgentKey()]);
    directory = await startDirectory([key, rotated]);
    strangerDirectory = await startDirectory([stranger]);
  });
  afterAll(async () => {
    await Promise.all([directory?.close(), strangerDirectory?.close()]);
  });

  const signed = (signer: AgentKey, origin: string, method: string, path: string, options = {}) => signRequest(signer, origin, method, `${base}${path}`, options);

  async function signedDelegation(dpopKey?: DpopKey): Promise<{ reg: RegistrationJson; tokens: TokenJson }> {
    const email = await newMember();
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-forwarded-for": freshIp(),
      ...(await signed(key, directory.origin, "POST", "/agent/identity")),
    };
    if (dpopKey) headers.dpop = await signProof(dpopKey, { htm: "POST", htu: `${base}/agent/identity` });
    const res = await fetch(`${base}/agent/identity`, { method: "POST", headers, body: JSON.stringify({ type: "service_auth", login_hint: email }) });
    expect(res.status).toBe(200);
    const reg = (await res.json()) as RegistrationJson;
    await approveAs(reg, email);
    const pollHeaders = { ...(await signed(key, directory.origin, "POST", "/oauth2/token")), ...(dpopKey ? { dpop: await tokenProof(dpopKey) } : {}) };
    const polled = await tokenRequest({ grant_type: CLAIM_GRANT, claim_token: reg.claim_token }, pollHeaders);
    expect(polled.status).toBe(200);
    return { reg, tokens: (await polled.json()) as TokenJson };
  }

  it("the token response names the agent origin; a read must be signed by a key of it; revocation needs no signature", async () => {
    const { reg, tokens } = await signedDelegation();
    expect(tokens.token_type).toBe("Bearer");
    expect((tokens as TokenJson & { agent_origin?: string }).agent_origin).toBe(directory.origin);
    expect(await getDb().accessToken.findFirstOrThrow({ where: { registrationId: reg.registration_id } })).toMatchObject({ agentOrigin: directory.origin, dpopJkt: null });
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const path = "/api/v1/agent/account";
    await getDb().delegation.updateMany({ where: { registrationId: reg.registration_id }, data: { lastUsedAt: null } });
    const before = await writes(reg.registration_id);
    const realm = new URL(base).hostname;

    const unsigned = await read(bearer);
    expect(unsigned.headers.get("www-authenticate")).toBe(`Signature realm="${realm}", tag="web-bot-auth", error="invalid_token"`);
    await expectError(unsigned, 401, "invalid_token", /bound to the Web Bot Auth agent .* sign each request with a key of that agent origin's directory/);
    const other = await read({ ...bearer, ...(await signed(stranger, strangerDirectory.origin, "GET", path)) });
    expect(other.headers.get("www-authenticate")).toBe(`Signature realm="${realm}", tag="web-bot-auth", error="invalid_token"`);
    await expectError(other, 401, "invalid_token", /bound to the Web Bot Auth agent/);
    const expired = await read({
      ...bearer,
      ...(await signed(key, directory.origin, "GET", path, { created: new Date(Date.now() - 900_000), expires: new Date(Date.now() - 600_000) })),
    });
    expect(expired.headers.get("www-authenticate")).toBe(`Signature realm="${realm}", tag="web-bot-auth", error="expired_signature"`);
    await expectError(expired, 401, "expired_signature");
    const replayedHeaders = await signed(key, directory.origin, "GET", path);
    expect(await writes(reg.registration_id)).toEqual(before);

    // Any key of the agent's directory (so keys can rotate); a nonce is accepted once.
    expect((await read({ ...bearer, ...replayedHeaders })).status).toBe(200);
    await expectError(await read({ ...bearer, ...replayedHeaders }), 401, "replayed_signature");
    const viaRotated = await read({ ...bearer, ...(await signed(rotated, directory.origin, "GET", "/api/v1/agent/registrations")) }, "/api/v1/agent/registrations");
    expect(viaRotated.status).toBe(200);

    // The exchange (signed, as issue 44 requires) gives a token bound alike.
    const exchanged = await tokenRequest(
      { grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource: `${base}/api` },
      await signed(key, directory.origin, "POST", "/oauth2/token"),
    );
    const fresh = (await exchanged.json()) as TokenJson & { agent_origin?: string };
    expect(fresh).toMatchObject({ token_type: "Bearer", agent_origin: directory.origin });
    await expectError(await read({ authorization: `Bearer ${fresh.access_token}` }), 401, "invalid_token");

    const revoked = await fetch(`${base}/oauth2/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${tokens.access_token}`,
    });
    expect(revoked.status).toBe(200);
    await expectError(await read({ ...bearer, ...(await signed(key, directory.origin, "GET", path)) }), 401, "invalid_token", /invalid, expired or revoked/);
  });

  it("signed and DPoP-bound: a read needs both the proof and the signature", async () => {
    const dpopKey = await newDpopKey("EdDSA");
    const { tokens } = await signedDelegation(dpopKey);
    expect(tokens.token_type).toBe("DPoP");
    expect((tokens as TokenJson & { agent_origin?: string }).agent_origin).toBe(directory.origin);
    const token = tokens.access_token;
    const path = "/api/v1/agent/account";
    await expectError(await read({ authorization: `DPoP ${token}`, dpop: await readProof(dpopKey, token) }), 401, "invalid_token", /Web Bot Auth/);
    await expectDpopChallenge(await read({ authorization: `DPoP ${token}`, ...(await signed(key, directory.origin, "GET", path)) }), "invalid_dpop_proof");
    expect((await read({ authorization: `DPoP ${token}`, dpop: await readProof(dpopKey, token), ...(await signed(key, directory.origin, "GET", path)) })).status).toBe(200);
  });
});
