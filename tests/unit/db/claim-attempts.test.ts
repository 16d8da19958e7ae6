// Every row of SPEC.md's state table, on a throwaway database with a hand-moved clock (600 s, 3600 s, 24 h).
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { decideAttempt, effectiveRegistrationStatus, pollClaim, refreshClaim, registerClaim, viewAttemptForApproval, type NewRegistration } from "@/lib/service-auth/lifecycle";
import { revokeAccessToken, verifyAccessToken } from "@/lib/tokens";
import { exchangeIdentityAssertion } from "@/lib/assertions";
import { SCOPES } from "@/lib/schemas/service-auth";

const ADA = "ada@example.com";

async function member(email = ADA) {
  const row = await getDb().member.findUniqueOrThrow({ where: { email } });
  return { id: row.id, email: row.email };
}

async function register(clock: ManualClock, loginHint = ADA, clientName: string | null = "Test Agent"): Promise<NewRegistration> {
  return registerClaim({ loginHint, clientName, scopes: [...SCOPES] }, clock);
}

async function approve(reg: NewRegistration, clock: ManualClock, email = ADA) {
  return decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await member(email), userCode: reg.attempt.userCode, decision: "approve" }, clock);
}

async function registrationRow(id: string) {
  return getDb().registration.findUniqueOrThrow({ where: { id } });
}

describe("(none) → POST /agent/identity → attempt initiated", () => {
  it("creates a registration with a 24 h outer claim and a 600 s attempt, secrets kept only as SHA-256", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    expect(reg.claimToken).toMatch(/^clm_[A-Za-z0-9_-]{43}$/);
    expect(reg.attempt.attemptToken).toMatch(/^cat_[A-Za-z0-9_-]{43}$/);
    expect(reg.attempt.userCode).toMatch(/^\d{8}$/);
    expect(reg.attempt.interval).toBe(5);
    expect(reg.claimExpiresAt.getTime() - clock.now().getTime()).toBe(24 * 3600 * 1000);
    expect(reg.attempt.expiresAt.getTime() - clock.now().getTime()).toBe(600 * 1000);
    expect(reg.scopes).toEqual([...SCOPES]);
    const row = await registrationRow(reg.registrationId);
    expect(row.status).toBe("pending");
    expect(row.loginHint).toBe(ADA);
    const dump = JSON.stringify([row, await getDb().claimAttempt.findMany({ where: { registrationId: reg.registrationId } })]);
    expect(dump).not.toContain(reg.claimToken);
    expect(dump).not.toContain(reg.attempt.attemptToken);
    expect(dump).not.toContain(reg.attempt.userCode);
    const audit = await getDb().auditEvent.findMany({ where: { registrationId: reg.registrationId } });
    expect(audit.map((a) => a.type)).toEqual(["registration"]);
  });

  it("normalizes the login hint and keeps only the requested scopes in canonical order", async () => {
    const clock = new ManualClock();
    const reg = await registerClaim({ loginHint: "  ADA@Example.com ", clientName: null, scopes: ["agent.registrations.read"] }, clock);
    const row = await registrationRow(reg.registrationId);
    expect(row.loginHint).toBe(ADA);
    expect(row.scope).toBe("agent.registrations.read");
    expect(row.clientName).toBeNull();
  });
});

describe("attempt initiated → poll", () => {
  it("answers authorization_pending while the human has not decided", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
    clock.advance(5);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
  });

  it("answers slow_down when polled faster than the interval; the interval grows by 5 and is remembered", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    expect((await pollClaim(reg.claimToken, clock)).ok).toBe(false);
    clock.advance(4);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "slow_down", interval: 10 });
    clock.advance(9);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "slow_down", interval: 15 });
    clock.advance(15);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
    clock.advance(14);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "slow_down", interval: 20 });
    const attempt = await getDb().claimAttempt.findUniqueOrThrow({ where: { id: reg.attempt.attemptId } });
    expect(attempt.interval).toBe(20);
  });

  it("after approval every poll at the allowed pace returns a fresh access token and assertion; too fast is still slow_down", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    expect(await approve(reg, clock)).toEqual({ outcome: "approved" });
    const first = await pollClaim(reg.claimToken, clock);
    if (!first.ok) throw new Error(`expected tokens, got ${first.error}`);
    expect(first.accessToken).toMatch(/^aca_/);
    expect(first.expiresIn).toBe(3600);
    expect(first.scope).toBe("agent.account.read agent.registrations.read");
    expect(first.assertionExpiresAt.getTime() - clock.now().getTime()).toBe(24 * 3600 * 1000);
    clock.advance(1);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "slow_down", interval: 10 });
    clock.advance(10);
    const second = await pollClaim(reg.claimToken, clock);
    if (!second.ok) throw new Error(`expected tokens, got ${second.error}`);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.identityAssertion).not.toBe(first.identityAssertion);
    expect(await verifyAccessToken(first.accessToken, clock)).not.toBeNull();
    expect(await verifyAccessToken(second.accessToken, clock)).not.toBeNull();
    const row = await registrationRow(reg.registrationId);
    expect(row.status).toBe("active");
    const delegation = await getDb().delegation.findUniqueOrThrow({ where: { registrationId: reg.registrationId } });
    expect(delegation).toMatchObject({ status: "active", clientName: "Test Agent", scope: "agent.account.read agent.registrations.read", memberId: (await member()).id });
    const types = (await getDb().auditEvent.findMany({ where: { registrationId: reg.registrationId }, orderBy: { at: "asc" } })).map((a) => a.type);
    expect(types).toEqual(["registration", "approval", "token_issue", "token_issue"]);
  });

  it("keeps returning tokens after the 600 s attempt lifetime once approved, until the 24 h outer claim expires", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    await approve(reg, clock);
    clock.advance(601);
    expect((await pollClaim(reg.claimToken, clock)).ok).toBe(true);
    clock.advance(24 * 3600);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
  });

  it("answers access_denied after the human denies (no code needed), registration denied", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const outcome = await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await member(), userCode: "", decision: "deny" }, clock);
    expect(outcome).toEqual({ outcome: "denied" });
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "access_denied" });
    expect((await registrationRow(reg.registrationId)).status).toBe("denied");
    const attempt = await getDb().claimAttempt.findUniqueOrThrow({ where: { id: reg.attempt.attemptId } });
    expect(attempt).toMatchObject({ status: "denied", decidedByMemberId: (await member()).id });
    const types = (await getDb().auditEvent.findMany({ where: { registrationId: reg.registrationId } })).map((a) => a.type);
    expect(types).toContain("denial");
  });

  it("answers expired_token once 600 seconds pass (outer claim still active)", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(599);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
    clock.advance(1);
    // 600 s after issue: expired; also past the pace window of the previous poll? No: only 1 s later.
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "slow_down", interval: 10 });
    clock.advance(10);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "expired_token" });
    expect(await approve(reg, clock)).toEqual({ outcome: "expired" });
  });

  it("answers invalid_grant for an unknown or malformed claim token", async () => {
    const clock = new ManualClock();
    expect(await pollClaim("clm_" + "A".repeat(43), clock)).toEqual({ ok: false, error: "invalid_grant" });
    expect(await pollClaim("not-a-token", clock)).toEqual({ ok: false, error: "invalid_grant" });
  });
});

describe("refresh (POST /agent/identity/claim)", () => {
  it("attempt expired → new attempt initiated; the old attempt closes at once and its link stops working", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(600);
    const refreshed = await refreshClaim({ claimToken: reg.claimToken, email: " Ada@Example.COM" }, clock);
    if (!refreshed.ok) throw new Error(refreshed.error);
    expect(refreshed.registrationId).toBe(reg.registrationId);
    expect(refreshed.attempt.attemptId).not.toBe(reg.attempt.attemptId);
    expect(refreshed.attempt.expiresAt.getTime() - clock.now().getTime()).toBe(600 * 1000);
    const old = await getDb().claimAttempt.findUniqueOrThrow({ where: { id: reg.attempt.attemptId } });
    expect(old.status).toBe("closed");
    expect(await viewAttemptForApproval(reg.attempt.attemptToken, await member(), clock)).toEqual({ state: "closed" });
    expect(await approve(reg, clock)).toEqual({ outcome: "closed" });
    // The new attempt is the one polls now see.
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
    const next = { ...reg, attempt: refreshed.attempt };
    expect(await approve(next, clock)).toEqual({ outcome: "approved" });
    expect((await pollClaim(reg.claimToken, new ManualClock(clock.now().getTime() + 5000))).ok).toBe(true);
  });

  it("a prior attempt still active → claimed_or_in_flight, nothing changes", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(599);
    expect(await refreshClaim({ claimToken: reg.claimToken, email: ADA }, clock)).toEqual({ ok: false, error: "claimed_or_in_flight" });
    expect(await getDb().claimAttempt.count({ where: { registrationId: reg.registrationId } })).toBe(1);
  });

  it("claim already used (approved or denied) → claimed_or_in_flight", async () => {
    const clock = new ManualClock();
    const approvedReg = await register(clock);
    await approve(approvedReg, clock);
    const deniedReg = await register(clock, "grace@example.com");
    await decideAttempt({ attemptToken: deniedReg.attempt.attemptToken, member: await member("grace@example.com"), userCode: "", decision: "deny" }, clock);
    clock.advance(601);
    expect(await refreshClaim({ claimToken: approvedReg.claimToken, email: ADA }, clock)).toEqual({ ok: false, error: "claimed_or_in_flight" });
    expect(await refreshClaim({ claimToken: deniedReg.claimToken, email: "grace@example.com" }, clock)).toEqual({ ok: false, error: "claimed_or_in_flight" });
  });

  it("unknown claim token → invalid_claim_token; another e-mail → email_mismatch (answered invalid_claim_token in its own words)", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(600);
    expect(await refreshClaim({ claimToken: reg.claimToken, email: "grace@example.com" }, clock)).toEqual({ ok: false, error: "email_mismatch" });
    expect(await refreshClaim({ claimToken: "clm_" + "B".repeat(43), email: ADA }, clock)).toEqual({ ok: false, error: "invalid_claim_token" });
    expect(await refreshClaim({ claimToken: "garbage", email: ADA }, clock)).toEqual({ ok: false, error: "invalid_claim_token" });
  });

  it("outer claim expired (24 h), attempt expired or initiated → claim_expired; polls invalid_grant; registration expired", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    clock.advance(24 * 3600 - 300);
    const refreshed = await refreshClaim({ claimToken: reg.claimToken, email: ADA }, clock);
    expect(refreshed.ok).toBe(true);
    // The new attempt is initiated and not yet past its 600 s, but the outer claim ends first.
    clock.advance(300);
    expect(await refreshClaim({ claimToken: reg.claimToken, email: ADA }, clock)).toEqual({ ok: false, error: "claim_expired" });
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
    expect((await registrationRow(reg.registrationId)).status).toBe("expired");
    if (refreshed.ok) expect(await viewAttemptForApproval(refreshed.attempt.attemptToken, await member(), clock)).toEqual({ state: "expired" });
  });

  it("effectiveRegistrationStatus shows an untouched pending registration past its outer claim as expired", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const row = await registrationRow(reg.registrationId);
    expect(effectiveRegistrationStatus(row, clock)).toBe("pending");
    clock.advance(24 * 3600);
    expect(effectiveRegistrationStatus(row, clock)).toBe("expired");
  });
});

describe("the human decision", () => {
  it("viewAttemptForApproval: open for the owner and for another member (isOwner false), with client name, scopes and expiry", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const view = await viewAttemptForApproval(reg.attempt.attemptToken, await member(), clock);
    expect(view).toEqual({
      state: "open",
      attemptId: reg.attempt.attemptId,
      registrationId: reg.registrationId,
      clientName: "Test Agent",
      scopes: [...SCOPES],
      expiresAt: reg.attempt.expiresAt,
      isOwner: true,
      // Unsigned: no verified origin (issue 44).
      agentOrigin: null,
    });
    expect(await viewAttemptForApproval(reg.attempt.attemptToken, await member("grace@example.com"), clock)).toMatchObject({ state: "open", isOwner: false });
    expect(await viewAttemptForApproval("cat_" + "C".repeat(43), await member(), clock)).toEqual({ state: "not_found" });
    expect(await viewAttemptForApproval("nonsense", await member(), clock)).toEqual({ state: "not_found" });
    await approve(reg, clock);
    expect(await viewAttemptForApproval(reg.attempt.attemptToken, await member(), clock)).toEqual({ state: "approved" });
    clock.advance(600);
    expect(await viewAttemptForApproval(reg.attempt.attemptToken, await member(), clock)).toEqual({ state: "approved" });
  });

  it("a member who is not the owner cannot decide; the attempt stays pending", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    expect(await approve(reg, clock, "grace@example.com")).toEqual({ outcome: "not_owner" });
    const deny = await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await member("grace@example.com"), userCode: "", decision: "deny" }, clock);
    expect(deny).toEqual({ outcome: "not_owner" });
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
    expect(await viewAttemptForApproval(reg.attempt.attemptToken, await member(), clock)).toMatchObject({ state: "open" });
  });

  it("an unknown e-mail gets a registration no member can approve", async () => {
    const clock = new ManualClock();
    const reg = await register(clock, "nobody@example.com");
    expect(await approve(reg, clock)).toEqual({ outcome: "not_owner" });
  });

  it("a wrong code is refused; the fifth wrong code closes the attempt as denied", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const wrong = reg.attempt.userCode === "00000000" ? "11111111" : "00000000";
    const ada = await member();
    for (let i = 1; i <= 4; i++) {
      expect(await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: ada, userCode: wrong, decision: "approve" }, clock)).toEqual({
        outcome: "wrong_code",
        remainingTries: 5 - i,
      });
    }
    expect(await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: ada, userCode: wrong, decision: "approve" }, clock)).toEqual({ outcome: "locked" });
    expect(await approve(reg, clock)).toEqual({ outcome: "already_decided" });
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "access_denied" });
    expect((await registrationRow(reg.registrationId)).status).toBe("denied");
  });

  it("accepts the code with the spaces or dash a human types; refuses a non-numeric code as wrong", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    const ada = await member();
    expect(await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: ada, userCode: "abc", decision: "approve" }, clock)).toEqual({
      outcome: "wrong_code",
      remainingTries: 4,
    });
    const typed = `${reg.attempt.userCode.slice(0, 4)}-${reg.attempt.userCode.slice(4)} `;
    expect(await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: ada, userCode: typed, decision: "approve" }, clock)).toEqual({ outcome: "approved" });
  });

  it("a decided attempt cannot be decided again; unknown links are not_found", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    await approve(reg, clock);
    expect(await approve(reg, clock)).toEqual({ outcome: "already_decided" });
    expect(await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await member(), userCode: "", decision: "deny" }, clock)).toEqual({ outcome: "already_decided" });
    expect(await decideAttempt({ attemptToken: "cat_" + "D".repeat(43), member: await member(), userCode: "12345678", decision: "approve" }, clock)).toEqual({
      outcome: "not_found",
    });
  });
});

describe("access tokens and assertions", () => {
  async function approvedTokens(clock: ManualClock) {
    const reg = await register(clock);
    await approve(reg, clock);
    const poll = await pollClaim(reg.claimToken, clock);
    if (!poll.ok) throw new Error(poll.error);
    return { reg, poll };
  }

  it("an access token is valid for 3600 seconds, then invalid; use updates lastUsedAt", async () => {
    const clock = new ManualClock();
    const { reg, poll } = await approvedTokens(clock);
    clock.advance(3599);
    const verified = await verifyAccessToken(poll.accessToken, clock);
    expect(verified).toMatchObject({ registrationId: reg.registrationId, memberId: (await member()).id, memberEmail: ADA, clientName: "Test Agent", scopes: [...SCOPES] });
    expect((await getDb().delegation.findUniqueOrThrow({ where: { registrationId: reg.registrationId } })).lastUsedAt).toEqual(clock.now());
    clock.advance(1);
    expect(await verifyAccessToken(poll.accessToken, clock)).toBeNull();
  });

  it("revocation is immediate and idempotent; unknown tokens and registration ids revoke nothing", async () => {
    const clock = new ManualClock();
    const { reg, poll } = await approvedTokens(clock);
    await revokeAccessToken(reg.registrationId, clock);
    await revokeAccessToken("aca_" + "E".repeat(43), clock);
    expect(await verifyAccessToken(poll.accessToken, clock)).not.toBeNull();
    await revokeAccessToken(poll.accessToken, clock);
    expect(await verifyAccessToken(poll.accessToken, clock)).toBeNull();
    await revokeAccessToken(poll.accessToken, clock);
    const revocations = await getDb().auditEvent.count({ where: { registrationId: reg.registrationId, type: "revocation" } });
    expect(revocations).toBe(1);
  });

  it("assertion valid → JWT-bearer exchange with the exact resource returns a fresh token, repeatedly, until 24 h", async () => {
    const clock = new ManualClock();
    const { reg, poll } = await approvedTokens(clock);
    const resource = "http://localhost:3000/api";
    const a = await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource }, clock);
    const b = await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource }, clock);
    if (!a.ok || !b.ok) throw new Error("exchange failed");
    expect(a.token.accessToken).not.toBe(b.token.accessToken);
    expect(await verifyAccessToken(a.token.accessToken, clock)).toMatchObject({ registrationId: reg.registrationId });
    expect(await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource: `${resource}/` }, clock)).toEqual({ ok: false, error: "invalid_target" });
    expect(await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource: "http://localhost:3000" }, clock)).toEqual({ ok: false, error: "invalid_target" });
    expect((await getDb().auditEvent.findMany({ where: { registrationId: reg.registrationId, type: "exchange" } })).length).toBe(2);
    clock.advance(24 * 3600 - 1);
    expect((await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource }, clock)).ok).toBe(true);
    clock.advance(1);
    expect(await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource }, clock)).toEqual({ ok: false, error: "invalid_grant" });
  });

  it("a cancelled delegation refuses its tokens, its assertion and further polls", async () => {
    const clock = new ManualClock();
    const { reg, poll } = await approvedTokens(clock);
    // What lib/delegations does when the member revokes on /account.
    await getDb().delegation.update({ where: { registrationId: reg.registrationId }, data: { status: "cancelled", cancelledAt: clock.now() } });
    await getDb().registration.update({ where: { id: reg.registrationId }, data: { status: "cancelled" } });
    expect(await verifyAccessToken(poll.accessToken, clock)).toBeNull();
    expect(await exchangeIdentityAssertion({ assertion: poll.identityAssertion, resource: "http://localhost:3000/api" }, clock)).toEqual({ ok: false, error: "invalid_grant" });
    clock.advance(10);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
  });
});
