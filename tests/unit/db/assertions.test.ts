// JWT-bearer validation (CONTRACT.md §5, RFC 8725): pinned alg, typ, iss, aud, exp, signature, kid, active delegation.
import { describe, expect, it, beforeAll } from "vitest";
import { SignJWT, generateKeyPair, decodeJwt, decodeProtectedHeader, base64url } from "jose";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { getKeySet, publicJwks } from "@/lib/keys";
import { decideAttempt, pollClaim, registerClaim } from "@/lib/service-auth/lifecycle";
import { exchangeIdentityAssertion, verifyIdentityAssertion } from "@/lib/assertions";
import { SCOPES } from "@/lib/schemas/service-auth";

const BASE = "http://localhost:3000";
const RESOURCE = `${BASE}/api`;
let assertion = "";
let registrationId = "";
let memberId = "";
const clock = new ManualClock();

beforeAll(async () => {
  const ada = await getDb().member.findUniqueOrThrow({ where: { email: "ada@example.com" } });
  memberId = ada.id;
  const reg = await registerClaim({ loginHint: ada.email, clientName: "Assertion Tester", scopes: [...SCOPES] }, clock);
  registrationId = reg.registrationId;
  await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: { id: ada.id, email: ada.email }, userCode: reg.attempt.userCode, decision: "approve" }, clock);
  const poll = await pollClaim(reg.claimToken, clock);
  if (!poll.ok) throw new Error(poll.error);
  assertion = poll.identityAssertion;
});

async function signWith(overrides: { header?: Record<string, unknown>; claims?: Record<string, unknown> }, key?: CryptoKey | Uint8Array): Promise<string> {
  const { active } = await getKeySet();
  const iat = Math.floor(clock.now().getTime() / 1000);
  const claims = { iss: BASE, aud: BASE, sub: memberId, iat, exp: iat + 3600, jti: "j1", scope: SCOPES.join(" "), registration_id: registrationId, ...overrides.claims };
  const header = { alg: "EdDSA", typ: "agent-identity+jwt", kid: active.kid, ...overrides.header };
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key ?? active.privateKey);
}

describe("identity assertion", () => {
  it("has the header and claims of CONTRACT.md §5 and verifies with the published key", async () => {
    const header = decodeProtectedHeader(assertion);
    const { keys } = await publicJwks();
    expect(header).toEqual({ alg: "EdDSA", typ: "agent-identity+jwt", kid: keys[0]!.kid });
    const claims = decodeJwt(assertion);
    expect(claims).toMatchObject({
      iss: BASE,
      aud: BASE,
      sub: memberId,
      scope: "agent.account.read agent.registrations.read",
      registration_id: registrationId,
      client_name: "Assertion Tester",
    });
    expect(claims.exp! - claims.iat!).toBe(24 * 3600);
    expect(typeof claims.jti).toBe("string");
    expect(await verifyIdentityAssertion(assertion, clock)).toMatchObject({ memberId, registrationId });
  });

  it("a well-formed assertion of ours is accepted (control for the negative cases)", async () => {
    expect((await exchangeIdentityAssertion({ assertion: await signWith({}), resource: RESOURCE }, clock)).ok).toBe(true);
  });

  const refused: [string, () => Promise<string>][] = [
    ["another typ", () => signWith({ header: { typ: "JWT" } })],
    ["no typ", () => signWith({ header: { typ: undefined } })],
    ["wrong iss", () => signWith({ claims: { iss: "https://evil.example" } })],
    ["wrong aud", () => signWith({ claims: { aud: "https://evil.example" } })],
    ["aud as an array", () => signWith({ claims: { aud: [BASE, "https://evil.example"] } })],
    ["the token endpoint as aud", () => signWith({ claims: { aud: `${BASE}/oauth2/token` } })],
    ["expired", () => signWith({ claims: { exp: Math.floor(clock.now().getTime() / 1000) - 1 } })],
    ["no exp", () => signWith({ claims: { exp: undefined } })],
    ["unknown kid", () => signWith({ header: { kid: "not-our-key" } })],
    ["no kid", () => signWith({ header: { kid: undefined } })],
    ["another registration", () => signWith({ claims: { registration_id: "00000000-0000-4000-8000-000000000000" } })],
    ["another subject", () => signWith({ claims: { sub: "someone-else" } })],
    [
      "a foreign Ed25519 key under our kid",
      async () => {
        const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519" });
        return signWith({}, privateKey);
      },
    ],
    [
      "HS256 with the public key as secret",
      async () => {
        const { keys } = await publicJwks();
        return signWith({ header: { alg: "HS256" } }, new TextEncoder().encode(keys[0]!.x!));
      },
    ],
    [
      "alg none",
      async () => {
        const parts = (await signWith({})).split(".");
        const header = base64url.encode(JSON.stringify({ alg: "none", typ: "agent-identity+jwt", kid: (await getKeySet()).active.kid }));
        return `${header}.${parts[1]}.`;
      },
    ],
    [
      "a tampered payload",
      async () => {
        const [h, , s] = assertion.split(".");
        const payload = base64url.encode(JSON.stringify({ ...decodeJwt(assertion), scope: "agent.account.read admin" }));
        return `${h}.${payload}.${s}`;
      },
    ],
    ["garbage", async () => "not.a.jwt"],
    ["empty", async () => ""],
  ];
  for (const [name, make] of refused) {
    it(`refuses ${name} as invalid_grant`, async () => {
      expect(await exchangeIdentityAssertion({ assertion: await make(), resource: RESOURCE }, clock)).toEqual({ ok: false, error: "invalid_grant" });
    });
  }

  it("checks the resource before anything else: invalid_target", async () => {
    for (const resource of ["", BASE, `${RESOURCE}/`, `${RESOURCE}/v1`, "https://localhost:3000/api", " http://localhost:3000/api"]) {
      expect(await exchangeIdentityAssertion({ assertion, resource }, clock)).toEqual({ ok: false, error: "invalid_target" });
    }
  });

  // Verifications are cached (lib/assertions/verified-cache.ts); nothing the cache holds may outlive what it stands for.
  it("a re-exchanged assertion is refused once it expires, though its verification was cached", async () => {
    const later = new ManualClock(clock.now());
    const short = await signWith({ claims: { exp: Math.floor(later.now().getTime() / 1000) + 60 } });
    expect((await exchangeIdentityAssertion({ assertion: short, resource: RESOURCE }, later)).ok).toBe(true);
    expect((await exchangeIdentityAssertion({ assertion: short, resource: RESOURCE }, later)).ok).toBe(true);
    later.advance(60);
    expect(await exchangeIdentityAssertion({ assertion: short, resource: RESOURCE }, later)).toEqual({ ok: false, error: "invalid_grant" });
  });

  it("a re-exchanged assertion is refused once its delegation is revoked, though its verification was cached", async () => {
    const bob = await getDb().member.findUniqueOrThrow({ where: { email: "grace@example.com" } });
    const reg = await registerClaim({ loginHint: bob.email, clientName: "Cache Tester", scopes: [...SCOPES] }, clock);
    await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: { id: bob.id, email: bob.email }, userCode: reg.attempt.userCode, decision: "approve" }, clock);
    const poll = await pollClaim(reg.claimToken, clock);
    if (!poll.ok) throw new Error(poll.error);
    expect((await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource: RESOURCE }, clock)).ok).toBe(true);
    await getDb().delegation.updateMany({ where: { registrationId: reg.registrationId }, data: { status: "cancelled" } });
    expect(await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource: RESOURCE }, clock)).toEqual({ ok: false, error: "invalid_grant" });
  });
});
