// The stores' conformance suite (issue 14): each store function's contract, on a throwaway database. It runs
// on SQLite and again on PostgreSQL (npm test), so both providers answer every store call the same way.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listAuditEvents, recordAudit } from "@/lib/audit";
import { findCertificate, insertCertificate } from "@/lib/certificates";
import { ManualClock } from "@/lib/clock";
import { isUniqueViolation, transaction } from "@/lib/db";
import { countMembers, findMemberByEmail, findMemberById, findPublicMember, findPublicProfile, insertMember, listMappedMembersPage, slugTaken } from "@/lib/members/store";
import * as tokens from "@/lib/grants/access-tokens";
import * as attempts from "@/lib/grants/claim-attempts";
import * as delegations from "@/lib/grants/delegations";
import * as registrations from "@/lib/grants/registrations";

const at = (iso: string): Date => new Date(iso);
const NOW = at("2026-03-01T10:00:00.123Z");

async function newMember(overrides: Partial<Parameters<typeof insertMember>[0]> = {}) {
  const id = randomUUID().slice(0, 8);
  return insertMember(
    {
      email: `store-${id}@example.com`,
      emailVerified: true,
      passwordHash: "scrypt$x",
      displayName: `Store ${id}`,
      displayNameKey: `store ${id}`,
      slug: `store-${id}`,
      publicProfile: true,
      joinedAt: at("2024-05-06T07:08:09.010Z"),
      city: null,
      country: null,
      latitude: null,
      longitude: null,
      ...overrides,
    },
    NOW,
  );
}

async function newRegistration(loginHint = "nobody@example.com") {
  const hash = `h-${randomUUID()}`;
  const id = await registrations.insertRegistration({
    loginHint,
    clientName: "Store Agent",
    scope: "agent.account.read",
    claimTokenHash: hash,
    claimExpiresAt: at("2026-03-02T10:00:00.000Z"),
    now: NOW,
  });
  return { id, hash };
}

describe("members store", () => {
  it("inserts and reads back every column exactly, finds by e-mail, id and slug, counts", async () => {
    const before = await countMembers();
    const member = await newMember({ city: "Lyon", country: "FR", latitude: 45.76, longitude: 4.83 });
    expect(await findMemberById(member.id)).toEqual(member);
    expect(await findMemberByEmail(member.email)).toEqual(member);
    expect(await slugTaken(member.slug)).toBe(true);
    expect(await slugTaken(`${member.slug}-free`)).toBe(false);
    expect(await countMembers()).toBe(before + 1);
    expect(await findPublicProfile(member.slug)).toEqual({ displayName: member.displayName, slug: member.slug, joinedAt: member.joinedAt, city: "Lyon", country: "FR" });
    expect((await listMappedMembersPage(undefined, 10_000)).some((m) => m.slug === member.slug && m.latitude === 45.76)).toBe(true);
    // Keyset pages: after a slug, only later slugs.
    const after = await listMappedMembersPage(member.slug, 10_000);
    expect(after.every((m) => m.slug > member.slug)).toBe(true);
  });

  it("a public lookup prefers the exact slug, then the earliest member of a display-name key; private members are never found", async () => {
    const key = `twin ${randomUUID().slice(0, 6)}`;
    const older = await newMember({ displayNameKey: key, joinedAt: at("2020-01-01T00:00:00.000Z") });
    await newMember({ displayNameKey: key, joinedAt: at("2021-01-01T00:00:00.000Z") });
    const hidden = await newMember({ publicProfile: false });
    expect((await findPublicMember("no-such-slug", key))?.slug).toBe(older.slug);
    expect(await findPublicMember(hidden.slug, hidden.displayNameKey)).toBeNull();
    expect(await findPublicProfile(hidden.slug)).toBeNull();
  });

  it("a taken e-mail fails with a unique violation", async () => {
    const member = await newMember();
    const error = await newMember({ email: member.email }).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });
});

describe("registrations store", () => {
  it("finds by claim-token hash and id; moves status only from the expected one", async () => {
    const { id, hash } = await newRegistration();
    const row = await registrations.findRegistrationByClaimTokenHash(hash);
    expect(row).toEqual({
      id,
      loginHint: "nobody@example.com",
      clientName: "Store Agent",
      scope: "agent.account.read",
      claimExpiresAt: at("2026-03-02T10:00:00.000Z"),
      status: "pending",
      agentOrigin: null,
      dpopJkt: null,
    });
    expect(await registrations.findRegistration(id)).toEqual(row);
    expect(await registrations.moveRegistration(id, "active", "denied", NOW)).toBe(0);
    expect(await registrations.markExpiredIfPending(id, NOW)).toBe(1);
    expect(await registrations.markExpiredIfPending(id, NOW)).toBe(0);
    expect(await registrations.markCancelled(id, NOW)).toBe(1);
    expect((await registrations.findRegistration(id))?.status).toBe("cancelled");
    expect(await registrations.clientNamesOf([id, randomUUID()])).toEqual(new Map([[id, "Store Agent"]]));
    expect(await registrations.clientNamesOf([])).toEqual(new Map());
  });

  it("keeps a registration's DPoP key (issue 52)", async () => {
    const hash = `h-${randomUUID()}`;
    const jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I";
    const id = await registrations.insertRegistration({
      loginHint: "nobody@example.com",
      clientName: null,
      scope: "s",
      claimTokenHash: hash,
      claimExpiresAt: NOW,
      now: NOW,
      dpopJkt: jkt,
    });
    expect((await registrations.findRegistration(id))?.dpopJkt).toBe(jkt);
  });
});

describe("claim attempts store", () => {
  it("keeps one live attempt; slot claims, slow-downs, wrong codes and decisions are conditional", async () => {
    const { id: registrationId } = await newRegistration();
    const first = await attempts.insertAttempt({
      registrationId,
      attemptTokenHash: `a-${randomUUID()}`,
      userCodeHash: "u1",
      expiresAt: at("2026-03-01T10:10:00.000Z"),
      interval: 5,
      now: NOW,
    });
    expect(await attempts.closeInitiated(first)).toBe(1);
    const hash = `a-${randomUUID()}`;
    const secondId = await attempts.insertAttempt({
      registrationId,
      attemptTokenHash: hash,
      userCodeHash: "u2",
      expiresAt: at("2026-03-01T10:20:00.000Z"),
      interval: 5,
      now: at("2026-03-01T10:10:00.000Z"),
    });
    const live = await attempts.currentAttempt(registrationId);
    expect(live).toEqual({ id: secondId, registrationId, status: "initiated", expiresAt: at("2026-03-01T10:20:00.000Z"), interval: 5, lastPolledAt: null });

    // Two polls that saw the same row: one claims the slot.
    expect(await attempts.claimPollSlot(live!, NOW)).toBe(1);
    expect(await attempts.claimPollSlot(live!, NOW)).toBe(0);
    const polled = (await attempts.currentAttempt(registrationId))!;
    expect(polled.lastPolledAt).toEqual(NOW);
    const later = at("2026-03-01T10:00:02.000Z");
    expect(await attempts.slowDown({ ...polled, lastPolledAt: NOW }, 10, later)).toBe(1);
    expect(await attempts.slowDown({ ...polled, lastPolledAt: NOW }, 10, later)).toBe(0);
    expect((await attempts.currentAttempt(registrationId))?.interval).toBe(10);

    const withRegistration = await attempts.findAttemptByTokenHash(hash);
    expect(withRegistration?.userCodeHash).toBe("u2");
    expect(withRegistration?.registration).toEqual({
      loginHint: "nobody@example.com",
      clientName: "Store Agent",
      scope: "agent.account.read",
      claimExpiresAt: at("2026-03-02T10:00:00.000Z"),
      agentOrigin: null,
    });

    expect(await attempts.countWrongCode(secondId)).toBe(1);
    expect(await attempts.countWrongCode(secondId)).toBe(2);
    const member = await newMember();
    // An approval after the expiry matches nothing; a refusal still decides.
    expect(await attempts.decide(secondId, "approved", member.id, at("2026-03-01T10:30:00.000Z"))).toBe(0);
    expect(await attempts.decide(secondId, "denied", member.id, NOW)).toBe(1);
    expect(await attempts.decide(secondId, "approved", member.id, NOW)).toBe(0);
    expect(await attempts.countWrongCode(secondId)).toBeNull();
    expect(await attempts.registrationsDecidedBy(member.id)).toEqual([registrationId]);
  });
});

describe("delegations and access tokens stores", () => {
  it("one delegation per registration; tokens join member, delegation and registration; revocations are conditional", async () => {
    const member = await newMember();
    const { id: registrationId } = await newRegistration(member.email);
    await registrations.moveRegistration(registrationId, "pending", "active", NOW);
    const delegationId = await delegations.insertDelegation({ registrationId, memberId: member.id, clientName: "Store Agent", scope: "agent.account.read", approvedAt: NOW });
    const duplicate = await delegations.insertDelegation({ registrationId, memberId: member.id, clientName: null, scope: "x", approvedAt: NOW }).catch((e: unknown) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(await delegations.findDelegationOfRegistration(registrationId)).toMatchObject({
      id: delegationId,
      memberId: member.id,
      status: "active",
      registrationStatus: "active",
      approvedAt: NOW,
      lastUsedAt: null,
    });
    expect(await delegations.touchLastUsed(delegationId, NOW)).toBe(1);
    expect((await delegations.listMemberDelegations(member.id)).map((d) => [d.id, d.lastUsedAt])).toEqual([[delegationId, NOW]]);
    expect(await delegations.registrationsDelegatedBy(member.id)).toEqual([registrationId]);

    const tokenHash = `t-${randomUUID()}`;
    const expiresAt = at("2026-03-01T11:00:00.000Z");
    const tokenId = await tokens.insertAccessToken({
      tokenHash,
      registrationId,
      delegationId,
      memberId: member.id,
      scope: "agent.account.read",
      resource: "http://localhost:3000/api",
      grant: "claim",
      expiresAt,
      now: NOW,
    });
    expect(await tokens.findTokenGrant(tokenHash)).toEqual({
      id: tokenId,
      memberId: member.id,
      registrationId,
      delegationId,
      scope: "agent.account.read",
      resource: "http://localhost:3000/api",
      expiresAt,
      revokedAt: null,
      memberEmail: member.email,
      clientName: "Store Agent",
      delegationStatus: "active",
      lastUsedAt: NOW,
      registrationType: "service_auth",
      registrationStatus: "active",
      dpopJkt: null,
      agentOrigin: null,
    });
    // Issue 52: a token's bindings are stored with it and read back with its grant.
    const boundHash = `t-${randomUUID()}`;
    const binding = { dpopJkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I", agentOrigin: "https://agent.example" };
    const boundId = await tokens.insertAccessToken({
      tokenHash: boundHash,
      registrationId,
      delegationId,
      memberId: member.id,
      scope: "s",
      resource: "r",
      grant: "claim",
      expiresAt,
      now: NOW,
      ...binding,
    });
    expect(await tokens.findTokenGrant(boundHash)).toMatchObject(binding);
    expect(await tokens.revokeToken(boundId, NOW)).toBe(1);
    expect(await tokens.findTokenOwner(tokenHash)).toEqual({ id: tokenId, memberId: member.id, registrationId });
    expect(await tokens.revokeToken(tokenId, NOW)).toBe(1);
    expect(await tokens.revokeToken(tokenId, NOW)).toBe(0);
    await tokens.insertAccessToken({
      tokenHash: `t-${randomUUID()}`,
      registrationId,
      delegationId,
      memberId: member.id,
      scope: "s",
      resource: "r",
      grant: "jwt-bearer",
      expiresAt,
      now: NOW,
    });
    expect(await tokens.revokeDelegationTokens(delegationId, NOW)).toBe(1);

    expect(await delegations.cancelActive(randomUUID(), delegationId, NOW)).toBe(0);
    expect(await delegations.cancelActive(member.id, delegationId, NOW)).toBe(1);
    expect(await delegations.cancelActive(member.id, delegationId, NOW)).toBe(0);
    expect(await delegations.findMemberDelegation(member.id, delegationId)).toMatchObject({ status: "cancelled", cancelledAt: NOW });
    expect(await delegations.touchLastUsed(delegationId, NOW)).toBe(0);
  });
});

describe("audit store and certificates store", () => {
  it("lists a member's events and those of given registrations, newest first, joining the caller's transaction", async () => {
    const member = await newMember();
    const clock = new ManualClock(NOW);
    const registrationId = randomUUID();
    await expect(
      transaction(async () => {
        await recordAudit({ type: "approval", memberId: member.id, registrationId }, clock);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await recordAudit({ type: "registration", registrationId, detail: "Store Agent" }, clock);
    clock.advance(1);
    await recordAudit({ type: "approval", memberId: member.id, registrationId }, clock);
    expect((await listAuditEvents(member.id, [], 10)).map((e) => e.type)).toEqual(["approval"]);
    const both = await listAuditEvents(member.id, [registrationId], 10);
    expect(both.map((e) => [e.type, e.at])).toEqual([
      ["approval", at("2026-03-01T10:00:01.123Z")],
      ["registration", NOW],
    ]);
  });

  it("certificates read back exactly", async () => {
    const id = `AG-T-${randomUUID().slice(0, 6)}`;
    const certificate = { id, memberId: null, holderDisplayName: "Holder", title: "Title", issuedAt: at("2025-02-03T04:05:06.007Z"), revokedAt: null };
    await insertCertificate(certificate);
    expect(await findCertificate(id)).toEqual(certificate);
    expect(await findCertificate(`${id}-none`)).toBeNull();
  });
});
