import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { sha256, newSecret } from "@/lib/crypto/secrets";
import { recordAudit } from "@/lib/audit";
import { cancelDelegation, listDelegations } from "@/lib/delegations";
import { listMemberAuditLog } from "@/lib/delegations/audit-log";

async function memberId(email: string): Promise<string> {
  return (await getDb().member.findUniqueOrThrow({ where: { email } })).id;
}

/** An approved delegation with `tokens` access tokens, written directly (the claim flow is tested elsewhere). */
async function approvedDelegation(email: string, clock: ManualClock, options: { clientName?: string | null; tokens?: number; scope?: string } = {}) {
  const db = getDb();
  const owner = await memberId(email);
  const scope = options.scope ?? "agent.account.read agent.registrations.read";
  const registration = await db.registration.create({
    data: {
      loginHint: email,
      clientName: options.clientName === undefined ? "Test Agent" : options.clientName,
      scope,
      claimTokenHash: sha256(newSecret("clm_")),
      claimExpiresAt: new Date(clock.now().getTime() + 24 * 3600 * 1000),
      status: "active",
    },
  });
  await recordAudit({ type: "registration", registrationId: registration.id, detail: "Test Agent" }, clock);
  const delegation = await db.delegation.create({
    data: { registrationId: registration.id, memberId: owner, clientName: registration.clientName, scope, approvedAt: clock.now() },
  });
  await recordAudit({ type: "approval", memberId: owner, registrationId: registration.id }, clock);
  const tokenIds: string[] = [];
  for (let i = 0; i < (options.tokens ?? 2); i++) {
    const token = await db.accessToken.create({
      data: {
        tokenHash: sha256(newSecret("aca_")),
        registrationId: registration.id,
        delegationId: delegation.id,
        memberId: owner,
        scope,
        resource: "http://localhost:3000/api",
        grant: "claim",
        expiresAt: new Date(clock.now().getTime() + 3600 * 1000),
      },
    });
    tokenIds.push(token.id);
  }
  return { owner, registration, delegation, tokenIds };
}

describe("listDelegations", () => {
  it("lists only the member's own delegations with scopes in canonical order", async () => {
    const clock = new ManualClock();
    const mine = await approvedDelegation("ada@example.com", clock, { clientName: "Ada's agent" });
    clock.advance(60);
    const later = await approvedDelegation("ada@example.com", clock, { clientName: null, scope: "agent.registrations.read" });
    await approvedDelegation("grace@example.com", clock);

    const list = await listDelegations(mine.owner);
    const ids = list.map((d) => d.id);
    expect(ids).toContain(mine.delegation.id);
    expect(ids.indexOf(later.delegation.id)).toBeLessThan(ids.indexOf(mine.delegation.id));
    const first = list.find((d) => d.id === mine.delegation.id)!;
    expect(first).toMatchObject({ clientName: "Ada's agent", scopes: ["agent.account.read", "agent.registrations.read"], status: "active", lastUsedAt: null });
    expect(list.find((d) => d.id === later.delegation.id)).toMatchObject({ clientName: null, scopes: ["agent.registrations.read"] });
    expect(await listDelegations(await memberId("alan@example.com"))).toEqual([]);
    const graceList = await listDelegations(await memberId("grace@example.com"));
    expect(graceList.map((d) => d.id)).not.toContain(mine.delegation.id);
  });
});

describe("cancelDelegation", () => {
  it("cancels delegation and registration, revokes every token and records one audit event, in one go", async () => {
    const clock = new ManualClock();
    const { owner, registration, delegation, tokenIds } = await approvedDelegation("alan@example.com", clock, { tokens: 3 });
    // One token was already revoked by the agent: its revocation time is kept.
    const earlier = new Date(clock.now().getTime() - 1000);
    await getDb().accessToken.update({ where: { id: tokenIds[0]! }, data: { revokedAt: earlier } });
    clock.advance(120);

    const result = await cancelDelegation(owner, delegation.id, clock);
    expect(result).toEqual({ outcome: "cancelled", revokedTokens: 2 });

    const db = getDb();
    const after = await db.delegation.findUniqueOrThrow({ where: { id: delegation.id } });
    expect(after.status).toBe("cancelled");
    expect(after.cancelledAt?.toISOString()).toBe(clock.now().toISOString());
    expect((await db.registration.findUniqueOrThrow({ where: { id: registration.id } })).status).toBe("cancelled");
    const tokens = await db.accessToken.findMany({ where: { delegationId: delegation.id }, orderBy: { createdAt: "asc" } });
    expect(tokens).toHaveLength(3);
    for (const token of tokens) expect(token.revokedAt).not.toBeNull();
    expect(tokens.find((t) => t.id === tokenIds[0])!.revokedAt!.toISOString()).toBe(earlier.toISOString());
    for (const id of tokenIds.slice(1)) expect(tokens.find((t) => t.id === id)!.revokedAt!.toISOString()).toBe(clock.now().toISOString());
    const audits = await db.auditEvent.findMany({ where: { registrationId: registration.id, type: "cancellation" } });
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ memberId: owner });
  });

  it("is idempotent: a second cancellation changes nothing", async () => {
    const clock = new ManualClock();
    const { owner, delegation, registration } = await approvedDelegation("katherine@example.com", clock);
    expect((await cancelDelegation(owner, delegation.id, clock)).outcome).toBe("cancelled");
    const firstCancelledAt = (await getDb().delegation.findUniqueOrThrow({ where: { id: delegation.id } })).cancelledAt;
    clock.advance(300);
    expect(await cancelDelegation(owner, delegation.id, clock)).toEqual({ outcome: "already_cancelled" });
    const after = await getDb().delegation.findUniqueOrThrow({ where: { id: delegation.id } });
    expect(after.cancelledAt).toEqual(firstCancelledAt);
    expect(await getDb().auditEvent.count({ where: { registrationId: registration.id, type: "cancellation" } })).toBe(1);
  });

  it("racing cancellations: exactly one wins", async () => {
    const clock = new ManualClock();
    const { owner, delegation, registration } = await approvedDelegation("edsger@example.com", clock);
    const results = await Promise.all([1, 2, 3, 4].map(() => cancelDelegation(owner, delegation.id, clock)));
    expect(results.filter((r) => r.outcome === "cancelled")).toHaveLength(1);
    expect(results.filter((r) => r.outcome === "already_cancelled")).toHaveLength(3);
    expect(await getDb().auditEvent.count({ where: { registrationId: registration.id, type: "cancellation" } })).toBe(1);
  });

  it("only the owner can cancel: another member's delegation id is not found and nothing changes", async () => {
    const clock = new ManualClock();
    const { delegation, registration, tokenIds } = await approvedDelegation("sofia@example.com", clock);
    const intruder = await memberId("grace@example.com");
    expect(await cancelDelegation(intruder, delegation.id, clock)).toEqual({ outcome: "not_found" });
    expect(await cancelDelegation(intruder, "not-a-delegation", clock)).toEqual({ outcome: "not_found" });
    expect(await cancelDelegation(intruder, "", clock)).toEqual({ outcome: "not_found" });
    const db = getDb();
    expect((await db.delegation.findUniqueOrThrow({ where: { id: delegation.id } })).status).toBe("active");
    expect((await db.registration.findUniqueOrThrow({ where: { id: registration.id } })).status).toBe("active");
    expect(await db.accessToken.count({ where: { id: { in: tokenIds }, revokedAt: { not: null } } })).toBe(0);
    expect(await db.auditEvent.count({ where: { registrationId: registration.id, type: "cancellation" } })).toBe(0);
  });
});

describe("listMemberAuditLog", () => {
  it("shows the member's events and the registration events of their delegations, and nobody else's", async () => {
    const clock = new ManualClock();
    const mine = await approvedDelegation("private@example.com", clock, { clientName: "Pat's helper" });
    const other = await approvedDelegation("ada@example.com", clock, { clientName: "Someone else" });
    clock.advance(10);
    await cancelDelegation(mine.owner, mine.delegation.id, clock);

    const log = await listMemberAuditLog(mine.owner);
    expect(log.map((e) => e.type).sort()).toEqual(["approval", "cancellation", "registration"]);
    expect(log.every((e) => e.registrationId === mine.registration.id)).toBe(true);
    expect(log.every((e) => e.clientName === "Pat's helper")).toBe(true);
    expect(log.some((e) => e.registrationId === other.registration.id)).toBe(false);
    expect(log[0]!.type).toBe("cancellation");
  });
});
