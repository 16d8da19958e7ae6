import { describe, expect, it, vi } from "vitest";
import { useTestConfigAfterReset } from "../../support/config";

describe("locally generated secrets and keys are kept in the database", () => {
  it("generates AUTH_SECRET once and returns the same value after a restart", async () => {
    const first = await (await import("@/lib/local-secrets")).getAuthSecret();
    vi.resetModules(); // a new process: module caches are gone, the database stays
    await useTestConfigAfterReset();
    const second = await (await import("@/lib/local-secrets")).getAuthSecret();
    expect(first).toHaveLength(43);
    expect(second).toBe(first);
  });

  it("generates one Ed25519 signing key whose kid is its RFC 7638 thumbprint, kept across restarts", async () => {
    const { getKeySet } = await import("@/lib/keys");
    const { calculateJwkThumbprint } = await import("jose");
    const first = await getKeySet();
    expect(first.active.publicJwk).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(first.active.publicJwk).not.toHaveProperty("d");
    expect(first.active.kid).toBe(await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: first.active.publicJwk.x! }, "sha256"));
    vi.resetModules();
    await useTestConfigAfterReset();
    const second = await (await import("@/lib/keys")).getKeySet();
    expect(second.active.kid).toBe(first.active.kid);
  });

  it("uses SIGNING_KEYS when given: the first signs, all verify", async () => {
    const { exportJWK, generateKeyPair } = await import("jose");
    const keys = await Promise.all([1, 2].map(async () => exportJWK((await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true })).privateKey)));
    vi.resetModules();
    await useTestConfigAfterReset({ SIGNING_KEYS: JSON.stringify(keys) });
    const set = await (await import("@/lib/keys")).getKeySet();
    expect(set.all).toHaveLength(2);
    expect(set.active.publicJwk.x).toBe(keys[0]!.x);
  });
});
