// lib/db: the stores' executor. Values it writes are read back right by Prisma (the inspection client) and the
// other way round; one `transaction` that every store call inside it joins; a call that would wait on the
// connection from inside a transaction (a Prisma call, the checkpointer's hold) throws at once.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { execute, holdSqliteConnection, inTransaction, query, readBoolean, readDate, readOptionalDate, transaction, TransactionScopeError } from "@/lib/db";
import { getDb } from "@/lib/db/prisma";
import { decideAttempt, pollClaim, registerClaim, type PollOutcome } from "@/lib/service-auth/lifecycle";
import { SCOPES } from "@/lib/schemas/service-auth";

const ADA = "ada@example.com";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function insertMember(values: { emailVerified: boolean; publicProfile: boolean; joinedAt: Date }): Promise<string> {
  const id = randomUUID();
  await execute(
    `INSERT INTO "Member" ("id", "email", "emailVerified", "passwordHash", "displayName", "displayNameKey", "slug", "publicProfile", "joinedAt", "createdAt")
     VALUES ($1, $2, $3, 'x', $4, $5, $6, $7, $8, $8)`,
    [id, `${id}@example.com`, values.emailVerified, `Raw ${id}`, `raw ${id}`, `raw-${id}`, values.publicProfile, values.joinedAt],
  );
  return id;
}

const displayName = async (id: string) => (await getDb().member.findUniqueOrThrow({ where: { id } })).displayName;

describe("values through raw SQL and Prisma", () => {
  it("a raw insert's DateTime (with milliseconds) and booleans read back exactly through Prisma", async () => {
    const joinedAt = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    const id = await insertMember({ emailVerified: false, publicProfile: true, joinedAt });
    const member = await getDb().member.findUniqueOrThrow({ where: { id } });
    expect(member.joinedAt).toEqual(joinedAt);
    expect(member.createdAt).toEqual(joinedAt);
    expect(member.emailVerified).toBe(false);
    expect(member.publicProfile).toBe(true);
  });

  it("Prisma's DateTime, null DateTime and booleans read back exactly through raw SQL, and a bound Date matches them", async () => {
    const joinedAt = new Date(Date.UTC(2025, 11, 31, 23, 59, 59, 1));
    const created = await getDb().member.create({
      data: {
        email: `p-${randomUUID()}@example.com`,
        emailVerified: true,
        passwordHash: "x",
        displayName: "P",
        displayNameKey: "p",
        slug: `p-${randomUUID()}`,
        publicProfile: false,
        joinedAt,
      },
    });
    const rows = await query<{ joinedAt: unknown; emailVerified: unknown; publicProfile: unknown }>(
      `SELECT "joinedAt", "emailVerified", "publicProfile" FROM "Member" WHERE "id" = $1 AND "joinedAt" = $2`,
      [created.id, joinedAt],
    );
    expect(rows).toHaveLength(1);
    expect(readDate(rows[0]!.joinedAt)).toEqual(joinedAt);
    expect(readBoolean(rows[0]!.emailVerified)).toBe(true);
    expect(readBoolean(rows[0]!.publicProfile)).toBe(false);

    const reg = await registerClaim({ loginHint: ADA, clientName: null, scopes: [...SCOPES] }, new ManualClock());
    const attempts = await query<{ lastPolledAt: unknown; expiresAt: unknown }>(`SELECT "lastPolledAt", "expiresAt" FROM "ClaimAttempt" WHERE "id" = $1`, [reg.attempt.attemptId]);
    expect(readOptionalDate(attempts[0]!.lastPolledAt)).toBeNull();
    expect(readDate(attempts[0]!.expiresAt)).toEqual(reg.attempt.expiresAt);
  });

  it("dates, repeated in a statement and across statements and more than the formatter keeps, read back exactly; an invalid date writes nothing", async () => {
    // The SQLite side converts each argument once and keeps recent formatted dates: neither may change a value.
    const base = Date.UTC(2026, 5, 1, 12, 0, 0, 0);
    const times = Array.from({ length: 150 }, (_, i) => base + (i % 3 === 0 ? 0 : i * 1001));
    const ids: string[] = [];
    for (const time of times) ids.push(await insertMember({ emailVerified: true, publicProfile: true, joinedAt: new Date(time) }));
    const members = await getDb().member.findMany({ where: { id: { in: ids } } });
    const joinedAt = new Map(members.map((m) => [m.id, [m.joinedAt.getTime(), m.createdAt.getTime()]]));
    ids.forEach((id, i) => expect(joinedAt.get(id)).toEqual([times[i], times[i]]));

    const before = await getDb().member.count();
    await expect(insertMember({ emailVerified: true, publicProfile: true, joinedAt: new Date(Number.NaN) })).rejects.toThrow(RangeError);
    expect(await getDb().member.count()).toBe(before);
  });

  it("repeated and out-of-order placeholders bind the argument they name", async () => {
    const id = await insertMember({ emailVerified: true, publicProfile: false, joinedAt: new Date() });
    const rows = await query<{ id: string }>(`SELECT "id" FROM "Member" WHERE ("slug" = $2 OR "email" = $2) AND "id" = $1 AND "slug" <> $3`, [id, `raw-${id}`, "nobody"]);
    expect(rows).toEqual([{ id }]);
    expect(await execute(`UPDATE "Member" SET "displayName" = $2, "displayNameKey" = $2 WHERE "id" = $1`, [id, "same"])).toBe(1);
    expect(await displayName(id)).toBe("same");
  });
});

describe("raw transactions", () => {
  it("commit when the callback resolves and roll back when it throws", async () => {
    const id = await insertMember({ emailVerified: true, publicProfile: false, joinedAt: new Date() });
    await transaction((q) => q.execute(`UPDATE "Member" SET "displayName" = $1 WHERE "id" = $2`, ["committed", id]));
    expect(await displayName(id)).toBe("committed");
    await expect(
      transaction(async (q) => {
        await q.execute(`UPDATE "Member" SET "displayName" = $1 WHERE "id" = $2`, ["rolled back", id]);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await displayName(id)).toBe("committed");
  });

  it("every store call inside a transaction joins it: top-level query/execute see its writes and roll back with it", async () => {
    const id = await insertMember({ emailVerified: true, publicProfile: false, joinedAt: new Date() });
    const before = await displayName(id);
    await expect(
      transaction(async () => {
        expect(inTransaction()).toBe(true);
        await execute(`UPDATE "Member" SET "displayName" = $1 WHERE "id" = $2`, ["inside", id]);
        expect(await query<{ displayName: string }>(`SELECT "displayName" FROM "Member" WHERE "id" = $1`, [id])).toEqual([{ displayName: "inside" }]);
        // A nested transaction joins the outer one (it does not wait for it).
        await transaction((q) => q.execute(`UPDATE "Member" SET "displayNameKey" = $1 WHERE "id" = $2`, ["nested", id]));
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(inTransaction()).toBe(false);
    expect(await displayName(id)).toBe(before);
    expect((await getDb().member.findUniqueOrThrow({ where: { id } })).displayNameKey).not.toBe("nested");
  });

  it("a Prisma call inside a store transaction throws at once instead of waiting (both the model API and raw SQL)", async () => {
    const id = await insertMember({ emailVerified: true, publicProfile: false, joinedAt: new Date() });
    const started = Date.now();
    await expect(
      transaction(async (q) => {
        await q.execute(`UPDATE "Member" SET "displayName" = $1 WHERE "id" = $2`, ["lost", id]);
        await expect(getDb().member.update({ where: { id }, data: { displayName: "prisma" } })).rejects.toBeInstanceOf(TransactionScopeError);
        await expect(getDb().$executeRaw`UPDATE "Member" SET "displayName" = ${"prisma"} WHERE "id" = ${id}`).rejects.toBeInstanceOf(TransactionScopeError);
        await expect(getDb().member.findUnique({ where: { id } })).rejects.toThrow(/inside a store transaction/);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await displayName(id)).not.toBe("lost");
    expect(await displayName(id)).not.toBe("prisma");
  });

  it("holding the SQLite connection (the checkpointer's hold) from inside a transaction throws at once", async () => {
    await expect(transaction(() => holdSqliteConnection())).rejects.toBeInstanceOf(TransactionScopeError);
  });

  it("a store call that outlives its transaction runs at top level (it never lands in a later transaction)", async () => {
    const id = await insertMember({ emailVerified: true, publicProfile: false, joinedAt: new Date() });
    let fire!: () => void;
    const fired = new Promise<void>((resolve) => (fire = resolve));
    let leaked!: Promise<number>;
    await transaction(async () => {
      // Scheduled inside the first transaction, run while the later one is open.
      void fired.then(() => {
        leaked = execute(`UPDATE "Member" SET "displayName" = $1 WHERE "id" = $2`, ["leaked", id]);
      });
    });
    await expect(
      transaction(async (q) => {
        await q.execute(`UPDATE "Member" SET "displayNameKey" = $1 WHERE "id" = $2`, ["in later", id]);
        fire();
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error("roll back the later one");
      }),
    ).rejects.toThrow("roll back the later one");
    expect(await leaked).toBe(1);
    expect(await displayName(id)).toBe("leaked");
    expect((await getDb().member.findUniqueOrThrow({ where: { id } })).displayNameKey).not.toBe("in later");
  });

  it("a top-level raw read does not see the uncommitted writes of an open Prisma transaction", async () => {
    const id = await insertMember({ emailVerified: true, publicProfile: false, joinedAt: new Date() });
    const before = await displayName(id);
    let opened!: () => void;
    const prismaOpen = new Promise<void>((resolve) => (opened = resolve));
    const prisma = getDb().$transaction(async (tx) => {
      await tx.member.update({ where: { id }, data: { displayName: "uncommitted" } });
      opened();
      await sleep(50);
      throw new Error("abort");
    });
    await prismaOpen;
    const read = query<{ displayName: string }>(`SELECT "displayName" FROM "Member" WHERE "id" = $1`, [id]);
    await expect(prisma).rejects.toThrow("abort");
    expect(await read).toEqual([{ displayName: before }]);
  });
});

describe("the claim poll beside the other transitions", () => {
  it("many parallel polls mixed with approvals keep the state machine right", async () => {
    const clock = new ManualClock();
    const member = await getDb().member.findUniqueOrThrow({ where: { email: ADA } });
    const regs = await Promise.all(Array.from({ length: 8 }, () => registerClaim({ loginHint: ADA, clientName: "Mixed", scopes: [...SCOPES] }, clock)));
    const approve = (reg: (typeof regs)[number]) =>
      decideAttempt({ attemptToken: reg.attempt.attemptToken, member: { id: member.id, email: member.email }, userCode: reg.attempt.userCode, decision: "approve" }, clock);
    const poll = (reg: (typeof regs)[number]) => pollClaim(reg.claimToken, clock);

    // Round 1: per registration three polls and its approval, all interleaved.
    const round1 = await Promise.all(regs.map((reg) => Promise.all([poll(reg), approve(reg), poll(reg), poll(reg)])));
    const firstTokens: number[] = [];
    for (const [p1, decision, p2, p3] of round1) {
      expect(decision).toEqual({ outcome: "approved" });
      const polls = [p1, p2, p3] as PollOutcome[];
      const answered = polls.filter((o) => o.ok || o.error !== "slow_down");
      // Exactly one poll claims the slot: pending (before the approval) or a token (after it).
      expect(answered).toHaveLength(1);
      expect(answered[0]!.ok || (!answered[0]!.ok && answered[0]!.error === "authorization_pending")).toBe(true);
      firstTokens.push(answered[0]!.ok ? 1 : 0);
    }

    // Round 2, after every interval has passed: per registration exactly one of two polls gets a token.
    clock.advance(120);
    const round2 = await Promise.all(regs.map((reg) => Promise.all([poll(reg), poll(reg)])));
    for (const polls of round2) {
      expect(polls.filter((o) => o.ok)).toHaveLength(1);
      expect(polls.filter((o) => !o.ok && o.error === "slow_down")).toHaveLength(1);
    }

    for (const [i, reg] of regs.entries()) {
      const registration = await getDb().registration.findUniqueOrThrow({ where: { id: reg.registrationId } });
      expect(registration.status).toBe("active");
      expect(await getDb().delegation.count({ where: { registrationId: reg.registrationId } })).toBe(1);
      const tokens = firstTokens[i]! + 1;
      expect(await getDb().accessToken.count({ where: { registrationId: reg.registrationId } })).toBe(tokens);
      expect(await getDb().auditEvent.count({ where: { registrationId: reg.registrationId, type: "token_issue" } })).toBe(tokens);
    }
  });
});
