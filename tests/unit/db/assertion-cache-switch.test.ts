// ASSERTION_CACHE (lib/config): on (the default), the second JWT-bearer exchange of an assertion is answered from the
// verified-assertion cache without checking its signature again; off, every exchange runs jose's full check, and the
// answers are the same. Each case is a restart (the configuration is read once per process); jose's jwtVerify is
// wrapped to count the signature checks.
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { SCOPES } from "@/lib/schemas/service-auth";
import { useTestConfigAfterReset } from "../../support/config";

const signatureChecks = vi.hoisted(() => ({ count: 0 }));

vi.mock("jose", async (importOriginal) => {
  const jose = await importOriginal<typeof import("jose")>();
  const jwtVerify = (...args: Parameters<typeof jose.jwtVerify>) => {
    signatureChecks.count += 1;
    return jose.jwtVerify(...args);
  };
  return { ...jose, jwtVerify };
});

/** A new process started with ASSERTION_CACHE=value. */
async function restartWith(value: "on" | "off") {
  vi.resetModules();
  await useTestConfigAfterReset({ ASSERTION_CACHE: value });
  return {
    lifecycle: await import("@/lib/service-auth/lifecycle"),
    assertions: await import("@/lib/assertions"),
    tokens: await import("@/lib/tokens"),
  };
}

/** An approved agent's identity assertion, and an exchange of it that counts the signature checks it ran. */
async function approvedAgent(value: "on" | "off", clock: ManualClock) {
  const m = await restartWith(value);
  const member = await getDb().member.findUniqueOrThrow({ where: { email: "ada@example.com" } });
  const reg = await m.lifecycle.registerClaim({ loginHint: member.email, clientName: `Cache ${value}`, scopes: [...SCOPES] }, clock);
  await m.lifecycle.decideAttempt(
    { attemptToken: reg.attempt.attemptToken, member: { id: member.id, email: member.email }, userCode: reg.attempt.userCode, decision: "approve" },
    clock,
  );
  const poll = await m.lifecycle.pollClaim(reg.claimToken, clock);
  if (!poll.ok) throw new Error(poll.error);
  const exchange = async (assertion = poll.identityAssertion) => {
    const before = signatureChecks.count;
    const outcome = await m.assertions.exchangeIdentityAssertion({ assertion, resource: m.tokens.protectedResource() }, clock);
    return { ok: outcome.ok, checks: signatureChecks.count - before };
  };
  return { assertion: poll.identityAssertion, exchange };
}

describe("ASSERTION_CACHE", () => {
  it("on: the first exchange checks the signature, the next ones are hits", async () => {
    const agent = await approvedAgent("on", new ManualClock(Date.now()));
    expect(await agent.exchange()).toEqual({ ok: true, checks: 1 });
    expect(await agent.exchange()).toEqual({ ok: true, checks: 0 });
    expect(await agent.exchange()).toEqual({ ok: true, checks: 0 });
  });

  it("off: every exchange checks the signature in full, with the same answers", async () => {
    const clock = new ManualClock(Date.now());
    const agent = await approvedAgent("off", clock);
    expect(await agent.exchange()).toEqual({ ok: true, checks: 1 });
    expect(await agent.exchange()).toEqual({ ok: true, checks: 1 });
    expect(await agent.exchange()).toEqual({ ok: true, checks: 1 });
    // A tampered signature and an expired assertion are refused by the full check, as with the cache.
    const [header, payload, signature] = agent.assertion.split(".");
    const tampered = `${header}.${payload}.${signature!.startsWith("A") ? "B" : "A"}${signature!.slice(1)}`;
    expect(await agent.exchange(tampered)).toEqual({ ok: false, checks: 1 });
    clock.advance(24 * 3600);
    expect(await agent.exchange()).toEqual({ ok: false, checks: 1 });
  });
});
