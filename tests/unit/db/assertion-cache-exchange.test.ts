// The verified-assertion cache (lib/assertions/verified-cache.ts) in the JWT-bearer exchange: the second exchange of an
// assertion is answered without checking its signature again; a tampered or expired one is still refused. jose's
// jwtVerify is wrapped to count the signature checks. The cache always runs (issue 51 removed its switch; bench/README.md
// "Speed layers" has what it was weighed against).
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { SCOPES } from "@/lib/schemas/service-auth";
import * as lifecycle from "@/lib/service-auth/lifecycle";
import * as assertions from "@/lib/assertions";
import * as tokens from "@/lib/tokens";

const signatureChecks = vi.hoisted(() => ({ count: 0 }));

vi.mock("jose", async (importOriginal) => {
  const jose = await importOriginal<typeof import("jose")>();
  const jwtVerify = (...args: Parameters<typeof jose.jwtVerify>) => {
    signatureChecks.count += 1;
    return jose.jwtVerify(...args);
  };
  return { ...jose, jwtVerify };
});

/** An approved agent's identity assertion, and an exchange of it that counts the signature checks it ran. */
async function approvedAgent(clock: ManualClock) {
  const member = await getDb().member.findUniqueOrThrow({ where: { email: "ada@example.com" } });
  const reg = await lifecycle.registerClaim({ loginHint: member.email, clientName: "Cache", scopes: [...SCOPES] }, clock);
  await lifecycle.decideAttempt(
    { attemptToken: reg.attempt.attemptToken, member: { id: member.id, email: member.email }, userCode: reg.attempt.userCode, decision: "approve" },
    clock,
  );
  const poll = await lifecycle.pollClaim(reg.claimToken, clock);
  if (!poll.ok) throw new Error(poll.error);
  const exchange = async (assertion = poll.identityAssertion) => {
    const before = signatureChecks.count;
    const outcome = await assertions.exchangeIdentityAssertion({ assertion, resource: tokens.protectedResource() }, clock);
    return { ok: outcome.ok, checks: signatureChecks.count - before };
  };
  return { assertion: poll.identityAssertion, exchange };
}

describe("the verified-assertion cache in the exchange", () => {
  it("checks the signature on the first exchange only; a tampered or expired assertion is still refused", async () => {
    const clock = new ManualClock(Date.now());
    const agent = await approvedAgent(clock);
    expect(await agent.exchange()).toEqual({ ok: true, checks: 1 });
    expect(await agent.exchange()).toEqual({ ok: true, checks: 0 });
    expect(await agent.exchange()).toEqual({ ok: true, checks: 0 });
    const [header, payload, signature] = agent.assertion.split(".");
    const tampered = `${header}.${payload}.${signature!.startsWith("A") ? "B" : "A"}${signature!.slice(1)}`;
    expect(await agent.exchange(tampered)).toEqual({ ok: false, checks: 1 });
    clock.advance(24 * 3600);
    expect((await agent.exchange()).ok).toBe(false);
  });
});
