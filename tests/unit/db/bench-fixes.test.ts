// The per-request work the bench removed (bench/README.md "What changed"): reads of an access token
// write the delegation's lastUsedAt at most once a minute; the app's SQLite connection uses the WAL and has
// query-planner statistics.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { openSqliteDatabase } from "@/lib/db/connection";
import { openWorkerDatabase } from "@/lib/db/sqlite-checkpoint-worker";
import { sqlProvider } from "@/lib/db";
import { getDb } from "@/lib/db/prisma";
import { decideAttempt, pollClaim, registerClaim } from "@/lib/service-auth/lifecycle";
import { LAST_USED_RESOLUTION_MS, verifyAccessToken } from "@/lib/tokens";
import { SCOPES } from "@/lib/schemas/service-auth";
import { sqlRunDuring } from "../../support/sql-trace";

const ADA = "ada@example.com";

async function approvedToken(clock: ManualClock): Promise<{ token: string; registrationId: string }> {
  const reg = await registerClaim({ loginHint: ADA, clientName: "Bench Fix Agent", scopes: [...SCOPES] }, clock);
  const member = await getDb().member.findUniqueOrThrow({ where: { email: ADA } });
  await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: { id: member.id, email: member.email }, userCode: reg.attempt.userCode, decision: "approve" }, clock);
  const poll = await pollClaim(reg.claimToken, clock);
  if (!poll.ok) throw new Error(poll.error);
  return { token: poll.accessToken, registrationId: reg.registrationId };
}

const lastUsedAt = async (registrationId: string) => (await getDb().delegation.findUniqueOrThrow({ where: { registrationId } })).lastUsedAt;

describe("verifyAccessToken records use at most once a minute", () => {
  it("the first read sets lastUsedAt; reads within the minute leave it; a read a minute later moves it", async () => {
    const clock = new ManualClock();
    const { token, registrationId } = await approvedToken(clock);
    const first = clock.now();
    expect(await verifyAccessToken(token, clock)).not.toBeNull();
    expect(await lastUsedAt(registrationId)).toEqual(first);

    clock.advance(LAST_USED_RESOLUTION_MS / 1000 - 1);
    expect(await verifyAccessToken(token, clock)).not.toBeNull();
    expect(await lastUsedAt(registrationId)).toEqual(first);

    clock.advance(1);
    expect(await verifyAccessToken(token, clock)).not.toBeNull();
    expect(await lastUsedAt(registrationId)).toEqual(clock.now());
  });

  it("the uses recorded by concurrent reads commit together on SQLite (one COMMIT), each delegation's once", async () => {
    const clock = new ManualClock();
    const tokens = [];
    for (let i = 0; i < 4; i++) tokens.push(await approvedToken(clock));
    clock.advance(LAST_USED_RESOLUTION_MS / 1000);
    // Two reads of each token in the same iteration: four delegations to touch.
    const reads = [...tokens, ...tokens];
    let grants: unknown[] = [];
    const statements = await sqlRunDuring(async () => {
      grants = await Promise.all(reads.map(({ token }) => verifyAccessToken(token, clock)));
    });
    expect(grants.every((grant) => grant !== null)).toBe(true);
    for (const { registrationId } of tokens) expect(await lastUsedAt(registrationId)).toEqual(clock.now());
    const updates = statements.filter((sql) => sql.startsWith(`UPDATE "Delegation" SET "lastUsedAt"`));
    if (sqlProvider() === "sqlite") {
      expect(updates).toHaveLength(4);
      expect(statements.filter((sql) => sql === "COMMIT")).toHaveLength(1);
    } else {
      // Each read alone in its own transaction: a read that finds the use already recorded writes nothing.
      expect(updates.length).toBeGreaterThanOrEqual(4);
      expect(updates.length).toBeLessThanOrEqual(8);
    }
  });
});

/** A throwaway SQLite file with the checked-in schema and `members` public members (independent of TEST_DATABASE). */
function sqliteFileWithMembers(members: number): string {
  const file = path.join(os.tmpdir(), `agent-gate-bench-${randomBytes(4).toString("hex")}.db`);
  const raw = new Database(file);
  const migrations = path.join(__dirname, "../../../prisma/migrations");
  for (const dir of fs.readdirSync(migrations).sort()) {
    const sql = path.join(migrations, dir, "migration.sql");
    if (fs.existsSync(sql)) raw.exec(fs.readFileSync(sql, "utf8"));
  }
  const insert = raw.prepare(`INSERT INTO "Member" ("id", "email", "passwordHash", "displayName", "displayNameKey", "slug", "publicProfile") VALUES (?, ?, 'x', ?, ?, ?, 1)`);
  for (let i = 0; i < members; i++) insert.run(`m${i}`, `m${i}@example.com`, `Member ${i}`, `member ${i}`, `member-${i}`);
  raw.close();
  return file;
}

const removeSqlite = (file: string) => {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(`${file}${suffix}`, { force: true });
};

describe("the app's SQLite connection", () => {
  it("has planner statistics, so a display-name lookup uses its index rather than the two-valued publicProfile index", async () => {
    const file = sqliteFileWithMembers(50);
    const db = openSqliteDatabase(`file:${file}`);
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT "slug" FROM "Member" WHERE "displayNameKey" = 'member 7' AND "publicProfile" = 1`).all() as { detail: string }[];
      expect(plan.map((row) => row.detail).join(" ")).toContain("Member_displayNameKey_idx");
    } finally {
      db.close();
      removeSqlite(file);
    }
  });

  it("runs in WAL journal mode with synchronous NORMAL: COMMIT does not fsync on the Node thread (the log is synced off it, lib/db/sql/wal-sync.ts)", async () => {
    // Its own SQLite file, so this holds in the PostgreSQL pass too.
    const file = path.join(os.tmpdir(), `agent-gate-wal-${randomBytes(4).toString("hex")}.db`);
    const db = openSqliteDatabase(`file:${file}`);
    try {
      const rows = db.pragma("journal_mode") as { journal_mode: string }[];
      expect(rows[0]?.journal_mode).toBe("wal");
      const sync = db.pragma("synchronous") as { synchronous: bigint | number }[];
      expect(Number(sync[0]?.synchronous)).toBe(1);
      // The checkpoint worker's connection, off the Node thread, syncs fully.
      const worker = openWorkerDatabase(file);
      try {
        expect(Number((worker.pragma("synchronous") as { synchronous: bigint | number }[])[0]?.synchronous)).toBe(2);
      } finally {
        worker.close();
      }
    } finally {
      db.close();
      removeSqlite(file);
    }
  });

  it("answers a write only after a sync of the log (SQLite; on PostgreSQL its COMMIT is durable itself); a read waits for none", async () => {
    const { sharedConnection } = await import("@/lib/db/connection");
    const { execute, query, transaction } = await import("@/lib/db");
    const connection = sharedConnection();
    if (connection.provider === "postgres") {
      expect(sqlProvider()).toBe("postgres");
      return;
    }
    if (!connection.walSync) throw new Error("expected the SQLite connection in WAL mode, with its log sync");
    const walSync = connection.walSync;
    const original = walSync.afterCommit.bind(walSync);
    let syncs = 0;
    walSync.afterCommit = () => {
      syncs += 1;
      return original();
    };
    try {
      await query(`SELECT "id" FROM "Member" WHERE "id" = $1`, ["nobody"]);
      expect(syncs).toBe(0);
      await transaction(async (q) => q.execute(`UPDATE "Member" SET "displayName" = "displayName" WHERE "id" = $1`, ["nobody"]));
      expect(syncs).toBe(1);
      await execute(`INSERT INTO "CachedStat" ("name", "value", "computedAt") VALUES ($1, 1, $2)`, [`sync-${randomBytes(4).toString("hex")}`, new Date()]);
      expect(syncs).toBe(2);
    } finally {
      walSync.afterCommit = original;
    }
  });
});
