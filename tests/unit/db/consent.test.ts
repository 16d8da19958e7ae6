// Issue 53 in the claim lifecycle, on a throwaway database with a hand-moved clock (SQLite, and PostgreSQL with
// TEST_DATABASE=postgres): the member's two settings, "I didn't start this" and its report, blocking a verified
// origin (by the operator and by repeated reports), the network hash's life, and the janitor's report retention.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { approvalPolicy, blockOrigin, isOriginBlocked, REPORT_RETENTION_DAYS, reportsOverview, unblockOrigin } from "@/lib/consent";
import { hashConfirmationCode } from "@/lib/consent/confirmation";
import { networkHash } from "@/lib/consent/network";
import { consentSettingsOf, saveConsentSettings } from "@/lib/consent/settings";
import { getDb } from "@/lib/db/prisma";
import { listMemberAuditLog } from "@/lib/delegations/audit-log";
import { createMember } from "@/lib/members";
import { runJanitorPass } from "@/lib/operator/janitor";
import { SCOPES } from "@/lib/schemas/service-auth";
import { decideAttempt, pollClaim, refreshClaim, registerClaim, viewAttemptForApproval, type NewRegistration } from "@/lib/service-auth/lifecycle";
import { verifyAccessToken } from "@/lib/tokens";
import { useTestConfig } from "../../support/config";

const ORIGIN = "https://agent.example";
const DAY = 24 * 3600;

async function newMember(): Promise<{ id: string; email: string }> {
  const email = `consent-${randomBytes(5).toString("hex")}@example.com`;
  const row = await createMember({ email, password: "demo-password", displayName: `Consent ${email.slice(8, 18)}`, publicProfile: false });
  return { id: row.id, email: row.email };
}

type Member = Awaited<ReturnType<typeof newMember>>;

function register(member: Member, clock: ManualClock, options: { origin?: string; network?: string | null } = {}): Promise<NewRegistration> {
  const agent = options.origin ? { origin: options.origin, thumbprint: "thumbprint" } : null;
  return registerClaim({ loginHint: member.email, clientName: "Consent Agent", scopes: [...SCOPES], agent, network: options.network ?? null }, clock);
}

const decide = (reg: NewRegistration, member: Member, decision: "approve" | "deny" | "report", clock: ManualClock) =>
  decideAttempt({ attemptToken: reg.attempt.attemptToken, member, userCode: reg.attempt.userCode, decision }, clock);

async function events(registrationId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await getDb().webhookEvent.findMany({ orderBy: { id: "asc" } });
  return rows
    .map((row) => JSON.parse(row.payload) as { type: string; data: Record<string, unknown> })
    .filter((event) => event.data.registration_id === registrationId)
    .map(({ type, data }) => ({ type, data }));
}

const attemptRow = (id: string) => getDb().claimAttempt.findUniqueOrThrow({ where: { id } });

describe("the member's settings", () => {
  it("are both off for a member who never changed them, and are saved and read back", async () => {
    const member = await newMember();
    expect(await consentSettingsOf(member.id)).toEqual({ verifiedAgentsOnly: false, confirmUnverifiedAgents: false });
    await saveConsentSettings(member.id, { verifiedAgentsOnly: true, confirmUnverifiedAgents: false }, new Date());
    expect(await consentSettingsOf(member.id)).toEqual({ verifiedAgentsOnly: true, confirmUnverifiedAgents: false });
    await saveConsentSettings(member.id, { verifiedAgentsOnly: false, confirmUnverifiedAgents: true }, new Date());
    expect(await consentSettingsOf(member.id)).toEqual({ verifiedAgentsOnly: false, confirmUnverifiedAgents: true });
    expect(await getDb().consentSetting.count({ where: { memberId: member.id } })).toBe(1);
  });

  it("with no setting changed, the policy approves every request with no confirmation code (SPEC's flow)", async () => {
    const member = await newMember();
    expect(await approvalPolicy(member.id, null)).toEqual({ approvable: true, confirmationCode: false });
    expect(await approvalPolicy(member.id, ORIGIN)).toEqual({ approvable: true, confirmationCode: false });
  });
});

describe("only verified agents (RFC 10027 §6.1.7)", () => {
  it("an unsigned request can only be denied; the agent's polls are those of any pending request until then", async () => {
    const member = await newMember();
    await saveConsentSettings(member.id, { verifiedAgentsOnly: true, confirmUnverifiedAgents: true }, new Date());
    const clock = new ManualClock();
    const reg = await register(member, clock);
    expect(await approvalPolicy(member.id, null)).toEqual({ approvable: false, reason: "verified_only" });
    expect(await decide(reg, member, "approve", clock)).toEqual({ outcome: "not_allowed", reason: "verified_only" });
    // Refused before the code is looked at: nothing counted, nothing moved.
    expect((await attemptRow(reg.attempt.attemptId)).failedCodeCount).toBe(0);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "authorization_pending" });
    clock.advance(1);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "slow_down", interval: 10 });
    expect(await decide(reg, member, "deny", clock)).toEqual({ outcome: "denied" });
    clock.advance(10);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "access_denied" });
  });

  it("a signed request is approved as usual, with no confirmation code", async () => {
    const member = await newMember();
    await saveConsentSettings(member.id, { verifiedAgentsOnly: true, confirmUnverifiedAgents: true }, new Date());
    const clock = new ManualClock();
    const reg = await register(member, clock, { origin: ORIGIN });
    expect(await decide(reg, member, "approve", clock)).toEqual({ outcome: "approved" });
    expect((await pollClaim(reg.claimToken, clock, { signedBy: ORIGIN, dpopJkt: null })).ok).toBe(true);
  });
});

describe("the confirmation code (RFC 10027 §6.1.16)", () => {
  async function confirming(clock: ManualClock) {
    const member = await newMember();
    await saveConsentSettings(member.id, { verifiedAgentsOnly: false, confirmUnverifiedAgents: true }, new Date());
    const reg = await register(member, clock, { network: await networkHash("203.0.113.61") });
    const outcome = await decide(reg, member, "approve", clock);
    if (outcome.outcome !== "confirm") throw new Error(`expected confirm, got ${outcome.outcome}`);
    return { member, reg, code: outcome.confirmationCode };
  }

  it("approving shows a 6-digit code; polls answer confirmation_required until one carries it, then tokens come as today", async () => {
    const clock = new ManualClock();
    const { member, reg, code } = await confirming(clock);
    expect(code).toMatch(/^\d{6}$/);
    const row = await attemptRow(reg.attempt.attemptId);
    expect(row).toMatchObject({ status: "confirming", decidedByMemberId: member.id, confirmationFailures: 0 });
    // Stored as the keyed hash only.
    expect(row.confirmationCodeHash).toBe(await hashConfirmationCode(reg.attempt.attemptId, code));
    expect(JSON.stringify(row)).not.toContain(code);
    // No delegation, no approval yet: the registration is still pending.
    expect(await getDb().delegation.count({ where: { registrationId: reg.registrationId } })).toBe(0);
    expect((await getDb().registration.findUniqueOrThrow({ where: { id: reg.registrationId } })).status).toBe("pending");
    expect(await viewAttemptForApproval(reg.attempt.attemptToken, member, clock)).toMatchObject({ state: "confirming", isOwner: true });

    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "confirmation_required" });
    clock.advance(5);
    const tokens = await pollClaim(reg.claimToken, clock, undefined, `${code.slice(0, 3)} ${code.slice(3)}`);
    if (!tokens.ok) throw new Error(`expected tokens, got ${tokens.error}`);
    expect(await verifyAccessToken(tokens.accessToken, clock)).not.toBeNull();
    expect(await attemptRow(reg.attempt.attemptId)).toMatchObject({ status: "approved", confirmationCodeHash: null, networkHash: null });
    expect(await getDb().delegation.count({ where: { registrationId: reg.registrationId, status: "active" } })).toBe(1);
    // Later polls need no code (and ignore one).
    clock.advance(5);
    expect((await pollClaim(reg.claimToken, clock)).ok).toBe(true);
    clock.advance(5);
    expect((await pollClaim(reg.claimToken, clock, undefined, "000000")).ok).toBe(true);
    expect((await events(reg.registrationId)).map((e) => e.type)).toEqual(["delegation.requested", "delegation.approved"]);
  });

  it("a wrong code is refused and counted; the third denies the request", async () => {
    const clock = new ManualClock();
    const { reg, code } = await confirming(clock);
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await pollClaim(reg.claimToken, clock, undefined, wrong)).toEqual({ ok: false, error: "wrong_confirmation_code", remainingTries: 2 });
    clock.advance(5);
    expect(await pollClaim(reg.claimToken, clock, undefined, "not a code")).toEqual({ ok: false, error: "wrong_confirmation_code", remainingTries: 1 });
    clock.advance(5);
    expect(await pollClaim(reg.claimToken, clock, undefined, wrong)).toEqual({ ok: false, error: "confirmation_denied" });
    clock.advance(5);
    expect(await pollClaim(reg.claimToken, clock, undefined, code)).toEqual({ ok: false, error: "access_denied" });
    expect((await getDb().registration.findUniqueOrThrow({ where: { id: reg.registrationId } })).status).toBe("denied");
    const denied = (await events(reg.registrationId)).find((e) => e.type === "delegation.denied");
    expect(denied?.data.reason).toBe("too_many_wrong_confirmation_codes");
  });

  it("the poll's pace still applies: a code sent too soon is slow_down and is not looked at", async () => {
    const clock = new ManualClock();
    const { reg, code } = await confirming(clock);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "confirmation_required" });
    clock.advance(1);
    expect(await pollClaim(reg.claimToken, clock, undefined, code)).toEqual({ ok: false, error: "slow_down", interval: 10 });
    expect((await attemptRow(reg.attempt.attemptId)).status).toBe("confirming");
    clock.advance(10);
    expect((await pollClaim(reg.claimToken, clock, undefined, code)).ok).toBe(true);
  });

  it("lives for the attempt's remaining time: then expired_token, and a refresh starts over", async () => {
    const clock = new ManualClock();
    const { member, reg, code } = await confirming(clock);
    clock.advance(600);
    expect(await pollClaim(reg.claimToken, clock, undefined, code)).toEqual({ ok: false, error: "expired_token" });
    const refreshed = await refreshClaim({ claimToken: reg.claimToken, email: member.email }, clock);
    expect(refreshed.ok).toBe(true);
    expect((await attemptRow(reg.attempt.attemptId)).status).toBe("closed");
    clock.advance(5);
    expect(await pollClaim(reg.claimToken, clock, undefined, code)).toEqual({ ok: false, error: "authorization_pending" });
  });

  it("the member can still deny or report while the agent has not confirmed", async () => {
    const clock = new ManualClock();
    const first = await confirming(clock);
    expect(await decide(first.reg, first.member, "deny", clock)).toEqual({ outcome: "denied" });
    expect(await pollClaim(first.reg.claimToken, clock, undefined, first.code)).toEqual({ ok: false, error: "access_denied" });
    const second = await confirming(clock);
    expect(await decide(second.reg, second.member, "approve", clock)).toEqual({ outcome: "already_decided" });
    expect(await decide(second.reg, second.member, "report", clock)).toEqual({ outcome: "reported" });
    expect(await pollClaim(second.reg.claimToken, clock, undefined, second.code)).toEqual({ ok: false, error: "access_denied" });
    // Still undecided until the agent confirmed: the report keeps the request's network hash.
    const report = await getDb().agentReport.findFirstOrThrow({ where: { registrationId: second.reg.registrationId } });
    expect(report.networkHash).toBe(await networkHash("203.0.113.61"));
    expect((await attemptRow(second.reg.attempt.attemptId)).networkHash).toBeNull();
  });

  it("is never asked of a signed agent, nor of a member who did not turn it on", async () => {
    const clock = new ManualClock();
    const member = await newMember();
    await saveConsentSettings(member.id, { verifiedAgentsOnly: false, confirmUnverifiedAgents: true }, new Date());
    expect(await decide(await register(member, clock, { origin: ORIGIN }), member, "approve", clock)).toEqual({ outcome: "approved" });
    const other = await newMember();
    expect(await decide(await register(other, clock), other, "approve", clock)).toEqual({ outcome: "approved" });
  });
});

describe("I didn't start this (RFC 10027 §6.1.6)", () => {
  it("denies the request, keeps a report with the origin and network hash, tells the member's log and the webhooks", async () => {
    const clock = new ManualClock();
    const member = await newMember();
    const network = await networkHash("203.0.113.9");
    const reg = await register(member, clock, { origin: ORIGIN, network });
    expect((await attemptRow(reg.attempt.attemptId)).networkHash).toBe(network);
    expect(await decide(reg, member, "report", clock)).toEqual({ outcome: "reported" });
    expect(await pollClaim(reg.claimToken, clock, { signedBy: ORIGIN, dpopJkt: null })).toEqual({ ok: false, error: "access_denied" });
    // The decision erased the hash from the attempt; the report keeps it.
    expect((await attemptRow(reg.attempt.attemptId)).networkHash).toBeNull();
    const report = await getDb().agentReport.findFirstOrThrow({ where: { registrationId: reg.registrationId } });
    expect(report).toMatchObject({ memberId: member.id, agentOrigin: ORIGIN, networkHash: network, clientName: "Consent Agent" });
    expect((await listMemberAuditLog(member.id)).map((e) => e.type)).toEqual(expect.arrayContaining(["report", "denial"]));
    const sent = await events(reg.registrationId);
    expect(sent.map((e) => e.type)).toEqual(["delegation.requested", "delegation.denied", "delegation.reported"]);
    expect(sent[1]!.data.reason).toBe("reported");
    expect(sent[2]!.data).toMatchObject({ report_id: report.id, origin_blocked: false, agent_origin: ORIGIN, member_id: member.id });
    // A second report of a decided request changes nothing.
    expect(await decide(reg, member, "report", clock)).toEqual({ outcome: "already_decided" });
    expect(await getDb().agentReport.count({ where: { registrationId: reg.registrationId } })).toBe(1);
  });

  it("only the owner can report, and an approved request cannot be reported", async () => {
    const clock = new ManualClock();
    const member = await newMember();
    const stranger = await newMember();
    const reg = await register(member, clock);
    expect(await decide(reg, stranger, "report", clock)).toEqual({ outcome: "not_owner" });
    expect(await decide(reg, member, "approve", clock)).toEqual({ outcome: "approved" });
    expect(await decide(reg, member, "report", clock)).toEqual({ outcome: "already_decided" });
    expect(await getDb().agentReport.count({ where: { registrationId: reg.registrationId } })).toBe(0);
  });

  it("three distinct members within 24 hours block a verified origin: its delegations are cancelled, its requests cannot be approved", async () => {
    const origin = `https://phisher-${randomBytes(3).toString("hex")}.example`;
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    // An earlier victim's approved delegation, with a live token.
    const earlier = await newMember();
    const approved = await register(earlier, clock, { origin });
    await decide(approved, earlier, "approve", clock);
    const poll = await pollClaim(approved.claimToken, clock, { signedBy: origin, dpopJkt: null });
    if (!poll.ok) throw new Error(poll.error);
    // One member reports twice: one reporter.
    const first = await newMember();
    for (let i = 0; i < 2; i++) await decide(await register(first, clock, { origin }), first, "report", clock);
    // A report older than 24 hours does not count.
    const old = await newMember();
    clock.advance(-DAY - 60);
    await decide(await register(old, clock, { origin }), old, "report", clock);
    clock.advance(DAY + 60);
    const second = await newMember();
    await decide(await register(second, clock, { origin }), second, "report", clock);
    expect(await isOriginBlocked(origin)).toBe(false);
    // A pending request of a fourth member, made before the block.
    const pendingMember = await newMember();
    const pending = await register(pendingMember, clock, { origin });

    const third = await newMember();
    const last = await register(third, clock, { origin });
    expect(await decide(last, third, "report", clock)).toEqual({ outcome: "reported" });
    expect(await isOriginBlocked(origin)).toBe(true);
    expect((await events(last.registrationId)).at(-1)?.data.origin_blocked).toBe(true);

    expect(await verifyAccessToken(poll.accessToken, clock)).toBeNull();
    expect((await getDb().delegation.findUniqueOrThrow({ where: { registrationId: approved.registrationId } })).status).toBe("cancelled");
    const cancelled = (await events(approved.registrationId)).find((e) => e.type === "delegation.cancelled");
    expect(cancelled?.data).toMatchObject({ reason: "agent_blocked", revoked_tokens: 1 });
    expect(await decide(pending, pendingMember, "approve", clock)).toEqual({ outcome: "not_allowed", reason: "agent_blocked" });
    const overview = await reportsOverview(new Date(clock.now().getTime() - 2 * DAY * 1000));
    expect(overview.byOrigin.find((g) => g.key === origin)).toMatchObject({ reports: 5, members: 4, block: { status: "blocked", source: "reports" } });

    // Unblocked by the operator: reports made before no longer count, new ones do.
    expect(await unblockOrigin(origin, clock)).toBe(true);
    expect(await isOriginBlocked(origin)).toBe(false);
    clock.advance(60);
    const again = await newMember();
    await decide(await register(again, clock, { origin }), again, "report", clock);
    expect(await isOriginBlocked(origin)).toBe(false);
  });

  it("never blocks on reports when AGENT_REPORTS_BLOCK_THRESHOLD=0, and never blocks an unsigned agent's network", async () => {
    const origin = `https://reported-${randomBytes(3).toString("hex")}.example`;
    const clock = new ManualClock();
    useTestConfig({ AGENT_REPORTS_BLOCK_THRESHOLD: "0" });
    try {
      for (let i = 0; i < 4; i++) {
        const member = await newMember();
        await decide(await register(member, clock, { origin }), member, "report", clock);
      }
      expect(await isOriginBlocked(origin)).toBe(false);
    } finally {
      useTestConfig();
    }
    const network = await networkHash("198.51.100.77");
    const blockRows = await getDb().blockedAgentOrigin.count();
    for (let i = 0; i < 4; i++) {
      const member = await newMember();
      await decide(await register(member, clock, { network }), member, "report", clock);
    }
    expect(await getDb().blockedAgentOrigin.count()).toBe(blockRows);
    const overview = await reportsOverview(new Date(clock.now().getTime() - DAY * 1000));
    expect(overview.byNetwork.find((g) => g.key === network)).toMatchObject({ reports: 4, members: 4 });
  });
});

describe("blocking an origin (the operator)", () => {
  it("cancels its active delegations once, and lifting it lets it register and be approved again", async () => {
    const origin = `https://blocked-${randomBytes(3).toString("hex")}.example`;
    const clock = new ManualClock();
    const members = [await newMember(), await newMember()];
    for (const member of members) {
      const reg = await register(member, clock, { origin });
      await decide(reg, member, "approve", clock);
    }
    expect(await blockOrigin(origin, "operator", clock)).toEqual({ newlyBlocked: true, cancelledDelegations: 2, revokedTokens: 0 });
    expect(await blockOrigin(origin, "operator", clock)).toEqual({ newlyBlocked: false, cancelledDelegations: 0, revokedTokens: 0 });
    const overview = await reportsOverview(new Date(0));
    expect(overview.blocks.find((b) => b.origin === origin)).toMatchObject({ status: "blocked", source: "operator" });
    expect(await unblockOrigin(origin, clock)).toBe(true);
    expect(await unblockOrigin(origin, clock)).toBe(false);
    const member = await newMember();
    expect(await decide(await register(member, clock, { origin }), member, "approve", clock)).toEqual({ outcome: "approved" });
  });
});

describe("the janitor", () => {
  it(`removes reports after ${REPORT_RETENTION_DAYS} days and undecided attempts with their network hash`, async () => {
    const clock = new ManualClock(Date.UTC(2025, 0, 1));
    const member = await newMember();
    const reg = await register(member, clock, { network: await networkHash("203.0.113.50") });
    await decide(await register(member, clock), member, "report", clock);
    const reported = await getDb().agentReport.count();
    clock.advance(REPORT_RETENTION_DAYS * DAY + 60);
    const report = await runJanitorPass({ clock });
    if (!report.ran) throw new Error("janitor did not run");
    expect(report.removed.AgentReport).toBeGreaterThanOrEqual(1);
    expect(await getDb().agentReport.count()).toBe(reported - report.removed.AgentReport);
    expect(await getDb().claimAttempt.count({ where: { id: reg.attempt.attemptId } })).toBe(0);
  });
});
