// DPoP proof verification (issue 52 item 1, RFC 9449 §4.3) on an injectable clock, with proofs made by libraries
// (oauth4webapi's keys, jose's signer; oauth4webapi's own DPoP handle for the real client's proofs): every check of
// §4.3 refuses with invalid_dpop_proof and says why, a stale iat is rescued by a server nonce, a jti is accepted once
// through the injected replay check, and random input never throws.
import { randomUUID } from "node:crypto";
import { generateKeyPair, SignJWT } from "jose";
import fc from "fast-check";
import * as oauth from "oauth4webapi";
import { beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { MemoryStore } from "@/lib/shared-state/memory";
import { normalizeHtu } from "@/lib/dpop/htu";
import { NONCE_SLOT_SECONDS, nonceIssuer } from "@/lib/dpop/nonce";
import { IAT_MAX_AGE_SECONDS, IAT_MAX_LEAD_SECONDS, MAX_PROOF_LENGTH, verifyDpopProof, type AcceptOnce, type ProofDependencies, type ProofRequest } from "@/lib/dpop/proof";
import { athOf, newDpopKey, signProof, unsignedProof, type DpopKey, type ProofClaims } from "../support/dpop";
import { hostileString } from "../support/hostile";

const URL_ = "https://gate.example/oauth2/token";
const RESOURCE = "https://gate.example/api/v1/agent/account";
const TOKEN = `aca_${"t".repeat(43)}`;
const clock = new ManualClock(new Date());
const now = () => Math.floor(clock.now().getTime() / 1000);
const issuer = nonceIssuer("a deployment secret of at least 32 characters");

/** The injected replay check, as lib/dpop wires it: lib/shared-state's memory store (SQLite's), on this test's clock. */
function memoryReplay(): AcceptOnce {
  const memory = new MemoryStore();
  return async (key, untilEpochSeconds) => memory.acceptOnce({ scope: "dpop-jti", key, untilEpochSeconds }, clock.now().getTime());
}

/** A proof issued at this test's clock unless the case says otherwise. */
const proofOf = (key: DpopKey, claims: ProofClaims, header?: Record<string, unknown>) => signProof(key, { iat: now(), ...claims }, header);

let deps: ProofDependencies;
let es256: DpopKey;
let ed25519: DpopKey;

beforeAll(async () => {
  es256 = await newDpopKey("ES256");
  ed25519 = await newDpopKey("EdDSA");
});

function freshDeps(acceptOnce: AcceptOnce = memoryReplay()): ProofDependencies {
  deps = { clock, acceptOnce, nonces: async () => issuer };
  return deps;
}

async function verify(proof: string, request: Partial<ProofRequest> = {}, dependencies = freshDeps()) {
  return verifyDpopProof({ proof, method: "POST", url: URL_, ...request }, dependencies);
}

async function expectRefused(proof: string, detail: RegExp, request: Partial<ProofRequest> = {}) {
  const outcome = await verify(proof, request);
  expect(outcome).toEqual({ ok: false, error: "invalid_dpop_proof", detail: expect.stringMatching(detail) });
}

describe("a valid proof", () => {
  it("gives the RFC 7638 thumbprint of its key, for ES256, EdDSA and Ed25519 (RFC 9864's name of EdDSA on Ed25519)", async () => {
    for (const key of [es256, ed25519]) {
      expect(await verify(await proofOf(key, { htm: "POST", htu: URL_, iat: now() }))).toEqual({ ok: true, jkt: key.jkt });
    }
    expect(await verify(await proofOf(ed25519, { htm: "POST", htu: URL_ }, { alg: "Ed25519" }))).toEqual({ ok: true, jkt: ed25519.jkt });
  });

  it("made by oauth4webapi's DPoP handle (the real client) for a resource request, with ath, for ES256 and Ed25519 keys", async () => {
    for (const alg of ["ES256", "EdDSA"]) {
      const keyPair = await oauth.generateKeyPair(alg);
      const handle = oauth.DPoP({}, keyPair);
      let proof = "";
      const capture = async (_url: string, options: oauth.CustomFetchOptions<string, oauth.ProtectedResourceRequestBody>) => {
        proof = new Headers(options.headers).get("dpop") ?? "";
        return new Response("{}", { status: 200 });
      };
      await oauth.protectedResourceRequest(TOKEN, "GET", new URL(RESOURCE), undefined, undefined, { DPoP: handle, [oauth.customFetch]: capture });
      expect(await verify(proof, { method: "GET", url: RESOURCE, accessToken: TOKEN })).toEqual({ ok: true, jkt: await handle.calculateThumbprint() });
    }
  });

  it("matches htu after RFC 3986 normalisation, ignoring query and fragment", async () => {
    for (const htu of [
      "HTTPS://GATE.example:443/oauth2/token",
      "https://gate.example/oauth2/%74oken",
      "https://gate.example/oauth2/./token?x=1#f",
      "https://gate.example/a/../oauth2/token",
    ]) {
      expect(await verify(await proofOf(es256, { htm: "POST", htu }))).toMatchObject({ ok: true });
    }
    expect(normalizeHtu("https://gate.example/p%2fq")).toBe("https://gate.example/p%2Fq");
    expect(normalizeHtu("https://gate.example")).toBe("https://gate.example/");
    expect(normalizeHtu("ftp://gate.example/x")).toBeNull();
    expect(normalizeHtu("not a url")).toBeNull();
  });
});

describe("each check of RFC 9449 §4.3 refuses with invalid_dpop_proof", () => {
  it("one proof per request: a repeated header (joined with a comma), garbage, an over-long value", async () => {
    const proof = await proofOf(es256, { htm: "POST", htu: URL_ });
    await expectRefused(`${proof}, ${proof}`, /exactly one DPoP header/);
    await expectRefused("", /exactly one DPoP header/);
    await expectRefused("not.a.jws!", /exactly one DPoP header/);
    await expectRefused(`${proof}${"A".repeat(MAX_PROOF_LENGTH)}`, /longer than/);
  });

  it("alg none, HMAC and algorithms off the list", async () => {
    await expectRefused(unsignedProof(es256, { htm: "POST", htu: URL_ }), /alg must be one of ES256, EdDSA, Ed25519/);
    const claims = { htm: "POST", htu: URL_, iat: now(), jti: randomUUID() };
    const secret = new TextEncoder().encode("a shared secret a forger would pick");
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "dpop+jwt", jwk: { kty: "oct", k: Buffer.from(secret).toString("base64url") } as never })
      .sign(secret);
    await expectRefused(hmac, /alg must be one of/);
    const rsa = await generateKeyPair("RS256", { extractable: true });
    const rs256 = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "dpop+jwt", jwk: { kty: "RSA", n: "AQAB", e: "AQAB" } }).sign(rsa.privateKey);
    await expectRefused(rs256, /alg must be one of/);
  });

  it("typ other than dpop+jwt, or none", async () => {
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { typ: "JWT" }), /typ must be dpop\+jwt/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { typ: undefined }), /typ must be dpop\+jwt/);
  });

  it("a jwk holding a private key, a missing jwk, a key of another curve than the algorithm's", async () => {
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: es256.privateJwk }), /public key only/);
    await expectRefused(await proofOf(ed25519, { htm: "POST", htu: URL_ }, { jwk: ed25519.privateJwk }), /public key only/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: { kty: "oct", k: "c2VjcmV0" } }), /public key only/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: undefined }), /jwk must be a JSON object/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: { ...es256.publicJwk, crv: "P-384" } }), /EC key on P-256/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: ed25519.publicJwk }), /EC key on P-256/);
    await expectRefused(await proofOf(ed25519, { htm: "POST", htu: URL_ }, { alg: "Ed25519", jwk: es256.publicJwk }), /OKP key on Ed25519/);
  });

  it("a jwk is judged whole, every time: the same key with use enc or another alg is refused after it was accepted", async () => {
    expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_ }))).toMatchObject({ ok: true });
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: { ...es256.publicJwk, use: "enc" } }), /usable jwk/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: { ...es256.publicJwk, alg: "ES384" } }), /usable jwk/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_ }, { jwk: { ...es256.publicJwk, x: ed25519.publicJwk.x } }), /usable jwk|signature does not verify/);
  });

  it("a signature by another key than the jwk's, or a tampered payload", async () => {
    const other = await newDpopKey("ES256");
    await expectRefused(await proofOf(other, { htm: "POST", htu: URL_ }, { jwk: es256.publicJwk }), /signature does not verify/);
    const [header, , signature] = (await proofOf(es256, { htm: "POST", htu: URL_ })).split(".");
    const forged = Buffer.from(JSON.stringify({ htm: "POST", htu: URL_, iat: now(), jti: randomUUID() })).toString("base64url");
    await expectRefused(`${header}.${forged}.${signature}`, /signature does not verify/);
  });

  it("a missing claim: jti, htm, htu, iat", async () => {
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_, jti: null }), /jti claim/);
    await expectRefused(await proofOf(es256, { htu: URL_ } as never), /htm claim/);
    await expectRefused(await proofOf(es256, { htm: "POST" } as never), /htu claim/);
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_, iat: "now" as never }), /iat claim/);
  });

  it("htm or htu of another request (another method, path, host or scheme)", async () => {
    await expectRefused(await proofOf(es256, { htm: "GET", htu: URL_ }), /htm is not this request's method/);
    await expectRefused(await proofOf(es256, { htm: "post", htu: URL_ }), /htm/);
    for (const htu of [
      "https://gate.example/oauth2/revoke",
      "https://evil.example/oauth2/token",
      "http://gate.example/oauth2/token",
      "https://gate.example:8443/oauth2/token",
      "token",
    ]) {
      await expectRefused(await proofOf(es256, { htm: "POST", htu }), /htu is not this request's URI/);
    }
  });

  it("ath: missing, or the hash of another token, on a resource request", async () => {
    const request = { method: "GET", url: RESOURCE, accessToken: TOKEN };
    await expectRefused(await proofOf(es256, { htm: "GET", htu: RESOURCE }), /ath/, request);
    await expectRefused(await proofOf(es256, { htm: "GET", htu: RESOURCE, ath: athOf(`${TOKEN}x`) }), /ath/, request);
    expect(await verify(await proofOf(es256, { htm: "GET", htu: RESOURCE, ath: athOf(TOKEN) }), request)).toMatchObject({ ok: true });
  });
});

describe("iat window and server nonces", () => {
  it(`accepts iat from ${IAT_MAX_AGE_SECONDS} s behind to ${IAT_MAX_LEAD_SECONDS} s ahead; outside, answers use_dpop_nonce with a nonce`, async () => {
    for (const iat of [now() - IAT_MAX_AGE_SECONDS, now() + IAT_MAX_LEAD_SECONDS])
      expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat }))).toMatchObject({ ok: true });
    for (const iat of [now() - IAT_MAX_AGE_SECONDS - 1, now() + IAT_MAX_LEAD_SECONDS + 1, 0]) {
      expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat }))).toEqual({
        ok: false,
        error: "use_dpop_nonce",
        detail: expect.stringMatching(/iat is outside/),
        nonce: issuer.current(now()),
      });
    }
  });

  it("a nonce of ours makes a proof fresh whatever its iat (a wrong client clock), for one to two slots", async () => {
    const stale = now() - 3600;
    const nonce = issuer.current(now());
    expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat: stale, nonce }))).toMatchObject({ ok: true });
    clock.advance(NONCE_SLOT_SECONDS);
    expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat: stale, nonce }))).toMatchObject({ ok: true });
    clock.advance(NONCE_SLOT_SECONDS);
    expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat: stale, nonce }))).toMatchObject({ ok: false, error: "use_dpop_nonce" });
    // Forged, another deployment's, or not a string: no rescue.
    const foreign = nonceIssuer("another deployment's secret, also 32 characters long").current(now());
    for (const bad of [foreign, `${nonce.slice(0, -2)}AA`, "x"]) {
      expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat: stale, nonce: bad }))).toMatchObject({ ok: false, error: "use_dpop_nonce" });
    }
    await expectRefused(await proofOf(es256, { htm: "POST", htu: URL_, nonce: 42 as never }), /nonce claim must be a string/);
  });
});

describe("jti: accepted once, through the injected replay check", () => {
  it("a replay within the window is refused; the entry is kept until the proof could no longer pass", async () => {
    const calls: [string, number][] = [];
    const memory = memoryReplay();
    const dependencies = freshDeps(async (key, until) => {
      calls.push([key, until]);
      return memory(key, until);
    });
    const iat = now();
    const proof = await proofOf(es256, { htm: "POST", htu: URL_, iat });
    expect(await verify(proof, {}, dependencies)).toMatchObject({ ok: true });
    expect(await verify(proof, {}, dependencies)).toEqual({ ok: false, error: "invalid_dpop_proof", detail: expect.stringMatching(/jti was already used/) });
    expect(calls).toHaveLength(2);
    expect(calls[0]![1]).toBe(iat + IAT_MAX_AGE_SECONDS);
    // The key names the key and the jti, hashed: the same jti from another key is another proof.
    expect(calls[0]![0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const jti = randomUUID();
    expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, jti }), {}, dependencies)).toMatchObject({ ok: true });
    expect(await verify(await proofOf(ed25519, { htm: "POST", htu: URL_, jti }), {}, dependencies)).toMatchObject({ ok: true });
  });

  it("a proof carrying a nonce is kept until the nonce's end", async () => {
    const calls: number[] = [];
    const dependencies = freshDeps(async (_key, until) => (calls.push(until), true));
    const nonce = issuer.current(now());
    await verify(await proofOf(es256, { htm: "POST", htu: URL_, iat: now() - 3600, nonce }), {}, dependencies);
    expect(calls).toEqual([issuer.acceptedUntil(nonce, now())]);
  });

  it("a proof refused for another reason never uses up its jti (no replay check is made)", async () => {
    let checks = 0;
    const dependencies = freshDeps(async () => (checks++, true));
    const jti = randomUUID();
    await verify(await proofOf(es256, { htm: "GET", htu: URL_, jti }), {}, dependencies);
    await verify(await proofOf(es256, { htm: "POST", htu: URL_, jti }, { typ: "JWT" }), {}, dependencies);
    expect(checks).toBe(0);
    expect(await verify(await proofOf(es256, { htm: "POST", htu: URL_, jti }), {}, dependencies)).toMatchObject({ ok: true });
    expect(checks).toBe(1);
  });
});

describe("fast-check: random proofs never throw and are never accepted", () => {
  const segment = fc.oneof(
    fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"), maxLength: 80 }),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString("base64url")),
    fc.string({ unit: "binary", maxLength: 40 }).map((s) => Buffer.from(s).toString("base64url")),
  );
  const header = fc.record(
    {
      typ: fc.oneof(fc.constant("dpop+jwt"), fc.jsonValue()),
      alg: fc.oneof(fc.constantFrom("ES256", "EdDSA", "none", "HS256", "RS256", "Ed25519"), fc.jsonValue()),
      jwk: fc.oneof(fc.constantFrom({ kty: "EC", crv: "P-256", x: "AA", y: "AA" }, { kty: "OKP", crv: "Ed25519", x: "AA" }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  );
  const structured = fc
    .tuple(header, fc.jsonValue(), segment)
    .map(([h, p, s]) => `${Buffer.from(JSON.stringify(h)).toString("base64url")}.${Buffer.from(JSON.stringify(p)).toString("base64url")}.${s}`);
  const proof = fc.oneof(
    structured,
    fc.tuple(segment, segment, segment).map((parts) => parts.join(".")),
    fc.string({ unit: "binary", maxLength: 200 }),
    hostileString(),
  );

  it("structured, base64url and full-range strings: an invalid_dpop_proof with a sentence, or use_dpop_nonce", async () => {
    await fc.assert(
      fc.asyncProperty(proof, async (value) => {
        const outcome = await verify(value, { accessToken: TOKEN });
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.detail).toMatch(/^[\x20-\x7e]+$/);
      }),
      { numRuns: 400 },
    );
  });

  it("a well-signed proof with random claims is accepted only when every claim is right", async () => {
    const claims = fc.record({
      htm: fc.oneof(fc.constant("POST"), fc.string({ maxLength: 8 }), fc.jsonValue()),
      htu: fc.oneof(fc.constant(URL_), fc.webUrl(), fc.string({ maxLength: 30 }), fc.jsonValue()),
      iat: fc.oneof(
        fc.constant(0),
        fc.integer({ min: -120, max: 120 }).map((d) => now() + d),
        fc.jsonValue(),
      ),
      jti: fc.oneof(fc.uuid(), fc.string({ maxLength: 300 }), fc.jsonValue()),
      ath: fc.oneof(fc.constant(athOf(TOKEN)), fc.string({ maxLength: 50 }), fc.jsonValue()),
    });
    await fc.assert(
      fc.asyncProperty(claims, async (c) => {
        const outcome = await verify(await proofOf(ed25519, c as never), { accessToken: TOKEN });
        const right =
          c.htm === "POST" &&
          c.htu === URL_ &&
          typeof c.iat === "number" &&
          c.iat >= now() - IAT_MAX_AGE_SECONDS &&
          c.iat <= now() + IAT_MAX_LEAD_SECONDS &&
          typeof c.jti === "string" &&
          c.jti.length > 0 &&
          c.jti.length <= 256 &&
          c.ath === athOf(TOKEN);
        if (outcome.ok) expect(right).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
