// Racing requests cannot both win (CONTRACT.md §11): each race is fired in parallel with Promise.all.
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { decideAttempt, pollClaim, refreshClaim, registerClaim, type NewRegistration } from "@/lib/service-auth/lifecycle";
import { SCOPES } from "@/lib/schemas/service-auth";

const ADA = "ada@example.com";

async function ada() {
  const row = await getDb().member.findUniqueOrThrow({ where: { email: ADA } });
  return { id: row.id, email: row.email };
}

const register = (clock: ManualClock): Promise<NewRegistration> => registerClaim({ loginHint: ADA, clientName: "Racer", scopes: [...SCOPES] }, clock);

describe("parallel requests", () => {
  it("two approvals: exactly one wins, one delegation, one approval event", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const member = await ada();
    const outcomes = await Promise.all(
      [1, 2, 3].map(() => decideAttempt({ attemptToken: reg.attempt.attemptToken, member, userCode: reg.attempt.userCode, decision: "approve" }, clock)),
    );
    expect(outcomes.filter((o) => o.outcome === "approved")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "already_decided")).toHaveLength(2);
    expect(await getDb().delegation.count({ where: { registrationId: reg.registrationId } })).toBe(1);
    expect(await getDb().auditEvent.count({ where: { registrationId: reg.registrationId, type: "approval" } })).toBe(1);
  });

  it("an approval racing a denial: exactly one decides", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const member = await ada();
    const [approve, deny] = await Promise.all([
      decideAttempt({ attemptToken: reg.attempt.attemptToken, member, userCode: reg.attempt.userCode, decision: "approve" }, clock),
      decideAttempt({ attemptToken: reg.attempt.attemptToken, member, userCode: "", decision: "deny" }, clock),
    ]);
    const winners = [approve, deny].filter((o) => o.outcome === "approved" || o.outcome === "denied");
    expect(winners).toHaveLength(1);
    const status = (await getDb().registration.findUniqueOrThrow({ where: { id: reg.registrationId } })).status;
    expect(status).toBe(winners[0]!.outcome === "approved" ? "active" : "denied");
  });

  it("wrong codes in parallel: never more than five count, and the attempt ends denied", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const member = await ada();
    const wrong = reg.attempt.userCode === "00000000" ? "11111111" : "00000000";
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => decideAttempt({ attemptToken: reg.attempt.attemptToken, member, userCode: wrong, decision: "approve" }, clock)),
    );
    expect(outcomes.filter((o) => o.outcome === "wrong_code")).toHaveLength(4);
    expect(outcomes.filter((o) => o.outcome === "locked").length).toBeGreaterThanOrEqual(1);
    expect(outcomes.some((o) => o.outcome === "approved")).toBe(false);
    const attempt = await getDb().claimAttempt.findUniqueOrThrow({ where: { id: reg.attempt.attemptId } });
    expect(attempt.status).toBe("denied");
    expect(await getDb().auditEvent.count({ where: { registrationId: reg.registrationId, type: "denial" } })).toBe(1);
  });

  it("two refreshes: exactly one new attempt", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(600);
    const outcomes = await Promise.all([1, 2, 3].map(() => refreshClaim({ claimToken: reg.claimToken, email: ADA }, clock)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.error === "claimed_or_in_flight")).toHaveLength(2);
    const attempts = await getDb().claimAttempt.findMany({ where: { registrationId: reg.registrationId } });
    expect(attempts.map((a) => a.status).sort()).toEqual(["closed", "initiated"]);
  });

  it("a refresh racing a late approval of the expired attempt: the approval cannot win", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(600);
    const [refresh, approval] = await Promise.all([
      refreshClaim({ claimToken: reg.claimToken, email: ADA }, clock),
      decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await ada(), userCode: reg.attempt.userCode, decision: "approve" }, clock),
    ]);
    expect(refresh.ok).toBe(true);
    expect(["expired", "closed"]).toContain(approval.outcome);
  });

  it("parallel polls after approval: exactly one mints tokens, the others are slow_down", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await ada(), userCode: reg.attempt.userCode, decision: "approve" }, clock);
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => pollClaim(reg.claimToken, clock)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.error === "slow_down")).toHaveLength(3);
    expect(await getDb().accessToken.count({ where: { registrationId: reg.registrationId } })).toBe(1);
  });

  it("parallel polls while pending: exactly one is answered authorization_pending", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const outcomes = await Promise.all([1, 2, 3].map(() => pollClaim(reg.claimToken, clock)));
    expect(outcomes.filter((o) => !o.ok && o.error === "authorization_pending")).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.error === "slow_down")).toHaveLength(2);
  });
});
