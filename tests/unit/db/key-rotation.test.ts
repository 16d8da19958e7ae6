// Issue #17 item 7, rehearsed: `npm run keys:new` gives a new key; added as the second key it changes
// nothing, promoted to first it signs new assertions while old ones keep exchanging, and once the old key
// is dropped its assertions stop. Each step is a restart (SIGNING_KEYS is read once per process).
import { spawnSync } from "node:child_process";
import { decodeProtectedHeader } from "jose";
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { newSigningJwk, type NewSigningJwk } from "@/lib/keys/new-key";
import { SCOPES } from "@/lib/schemas/service-auth";
import { configFrom } from "@/lib/config";
import { ROOT } from "../../support/databases";
import { useTestConfigAfterReset } from "../../support/config";

type Modules = {
  lifecycle: typeof import("@/lib/service-auth/lifecycle");
  assertions: typeof import("@/lib/assertions");
  keys: typeof import("@/lib/keys");
  tokens: typeof import("@/lib/tokens");
};

/** A new process started with SIGNING_KEYS = these keys. */
async function restartWith(keys: NewSigningJwk[]): Promise<Modules> {
  vi.resetModules();
  await useTestConfigAfterReset({ SIGNING_KEYS: JSON.stringify(keys) });
  return {
    lifecycle: await import("@/lib/service-auth/lifecycle"),
    assertions: await import("@/lib/assertions"),
    keys: await import("@/lib/keys"),
    tokens: await import("@/lib/tokens"),
  };
}

describe("signing key rotation", () => {
  it("keys:new gives a private Ed25519 JWK whose kid is its RFC 7638 thumbprint", async () => {
    const { calculateJwkThumbprint } = await import("jose");
    const jwk = await newSigningJwk();
    expect(jwk).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(jwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(jwk.kid).toBe(await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x }, "sha256"));
    expect((await newSigningJwk()).kid).not.toBe(jwk.kid);
  });

  it("npm run -s keys:new prints the one key recipe's shape: SIGNING_KEYS's value, an array of one key the start accepts (issue 51)", () => {
    const run = spawnSync("npm", ["run", "-s", "keys:new"], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const keys = JSON.parse(lines[0]!) as NewSigningJwk[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", kid: expect.any(String) });
    expect(configFrom({ SIGNING_KEYS: lines[0]! }).signingKeys).toEqual(keys);
  });

  it("old assertions keep exchanging during the overlap and stop once the old key is dropped", async () => {
    const oldKey = await newSigningJwk();
    const newKey = await newSigningJwk();
    const clock = new ManualClock(Date.now());
    const ada = await getDb().member.findUniqueOrThrow({ where: { email: "ada@example.com" } });

    // Before: the old key alone. An agent is approved and holds an assertion signed by it.
    let m = await restartWith([oldKey]);
    const reg = await m.lifecycle.registerClaim({ loginHint: ada.email, clientName: "Rotation Agent", scopes: [...SCOPES] }, clock);
    const decided = await m.lifecycle.decideAttempt(
      { attemptToken: reg.attempt.attemptToken, member: { id: ada.id, email: ada.email }, userCode: reg.attempt.userCode, decision: "approve" },
      clock,
    );
    expect(decided.outcome).toBe("approved");
    const first = await m.lifecycle.pollClaim(reg.claimToken, clock);
    if (!first.ok) throw new Error(first.error);
    const oldAssertion = first.identityAssertion;
    expect(decodeProtectedHeader(oldAssertion).kid).toBe(oldKey.kid);
    const exchange = async (modules: Modules, assertion: string) =>
      (await modules.assertions.exchangeIdentityAssertion({ assertion, resource: modules.tokens.protectedResource() }, clock)).ok;
    expect(await exchange(m, oldAssertion)).toBe(true);

    // Step 1: the new key added second: the old one still signs, both verify and are published.
    m = await restartWith([oldKey, newKey]);
    expect((await m.keys.publicJwks()).keys.map((k) => k.kid)).toEqual([oldKey.kid, newKey.kid]);
    expect(await exchange(m, oldAssertion)).toBe(true);
    clock.advance(10);
    const during = await m.lifecycle.pollClaim(reg.claimToken, clock);
    if (!during.ok) throw new Error(during.error);
    expect(decodeProtectedHeader(during.identityAssertion).kid).toBe(oldKey.kid);

    // Step 2: promoted to first: new assertions carry the new kid, the old ones still exchange.
    m = await restartWith([newKey, oldKey]);
    clock.advance(10);
    const promoted = await m.lifecycle.pollClaim(reg.claimToken, clock);
    if (!promoted.ok) throw new Error(promoted.error);
    const newAssertion = promoted.identityAssertion;
    expect(decodeProtectedHeader(newAssertion).kid).toBe(newKey.kid);
    expect(await exchange(m, oldAssertion)).toBe(true);
    expect(await exchange(m, newAssertion)).toBe(true);

    // Step 3: the old key dropped: its assertions no longer exchange; the new key's do.
    m = await restartWith([newKey]);
    expect((await m.keys.publicJwks()).keys.map((k) => k.kid)).toEqual([newKey.kid]);
    expect(await exchange(m, oldAssertion)).toBe(false);
    expect(await exchange(m, newAssertion)).toBe(true);
  });
});
