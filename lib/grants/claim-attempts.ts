// Store of the ClaimAttempt table: the one module that writes it. A registration has one live attempt at a
// time (every other one is closed). Statuses: initiated | confirming | approved | denied | closed ("expired" is
// derived from expiresAt; "confirming": approved by the member, waiting for the agent's confirmation code, issue
// 53). Every write that decides a race is a conditional update whose row count the caller checks. The attempt's
// network hash (issue 53) is kept only while it is undecided (or waits for its confirmation code): every final decision
// clears it.
import { randomUUID } from "node:crypto";
import { db, readDate, readOptionalDate } from "@/lib/db";

export interface AttemptRow {
  id: string;
  registrationId: string;
  status: string;
  expiresAt: Date;
  interval: number;
  lastPolledAt: Date | null;
}

/** An attempt with the registration fields the approval page and the decision need. */
export interface AttemptWithRegistration extends AttemptRow {
  userCodeHash: string;
  registration: { loginHint: string; clientName: string | null; scope: string; claimExpiresAt: Date; agentOrigin: string | null };
}

interface RawAttempt {
  id: string;
  registrationId: string;
  status: string;
  expiresAt: unknown;
  interval: number;
  lastPolledAt: unknown;
}

function toRow(raw: RawAttempt): AttemptRow {
  return {
    id: raw.id,
    registrationId: raw.registrationId,
    status: raw.status,
    expiresAt: readDate(raw.expiresAt),
    interval: Number(raw.interval),
    lastPolledAt: readOptionalDate(raw.lastPolledAt),
  };
}

export async function insertAttempt(input: {
  registrationId: string;
  attemptTokenHash: string;
  userCodeHash: string;
  expiresAt: Date;
  interval: number;
  now: Date;
  /** The keyed hash of the requesting network (lib/consent), null when unknown. */
  networkHash?: string | null;
}): Promise<string> {
  const id = randomUUID();
  await db().execute(
    `INSERT INTO "ClaimAttempt" ("id", "registrationId", "attemptTokenHash", "userCodeHash", "status", "expiresAt", "interval", "failedCodeCount", "createdAt", "networkHash")
     VALUES ($1, $2, $3, $4, 'initiated', $5, $6, 0, $7, $8)`,
    [id, input.registrationId, input.attemptTokenHash, input.userCodeHash, input.expiresAt, input.interval, input.now, input.networkHash ?? null],
  );
  return id;
}

/** The registration's one live attempt (every other one is closed). */
export async function currentAttempt(registrationId: string): Promise<AttemptRow | null> {
  const rows = await db().query<RawAttempt>(
    `SELECT "id", "registrationId", "status", "expiresAt", "interval", "lastPolledAt" FROM "ClaimAttempt"
     WHERE "registrationId" = $1 AND "status" <> 'closed' ORDER BY "createdAt" DESC LIMIT 1`,
    [registrationId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

export async function findAttemptByTokenHash(attemptTokenHash: string): Promise<AttemptWithRegistration | null> {
  const rows = await db().query<
    RawAttempt & { userCodeHash: string; loginHint: string; clientName: string | null; scope: string; claimExpiresAt: unknown; agentOrigin: string | null }
  >(
    `SELECT a."id", a."registrationId", a."status", a."expiresAt", a."interval", a."lastPolledAt", a."userCodeHash",
            r."loginHint", r."clientName", r."scope", r."claimExpiresAt", r."agentOrigin"
     FROM "ClaimAttempt" a JOIN "Registration" r ON r."id" = a."registrationId"
     WHERE a."attemptTokenHash" = $1`,
    [attemptTokenHash],
  );
  const raw = rows[0];
  if (!raw) return null;
  return {
    ...toRow(raw),
    userCodeHash: raw.userCodeHash,
    registration: { loginHint: raw.loginHint, clientName: raw.clientName, scope: raw.scope, claimExpiresAt: readDate(raw.claimExpiresAt), agentOrigin: raw.agentOrigin },
  };
}

/** Closes an undecided attempt (initiated, or confirming: replaced by a refresh); 0 when it was decided or closed first. */
export function closeInitiated(id: string): Promise<number> {
  return db().execute(`UPDATE "ClaimAttempt" SET "status" = 'closed' WHERE "id" = $1 AND "status" IN ('initiated', 'confirming')`, [id]);
}

/** A poll that came too soon: the interval grows and the poll is remembered, unless a parallel poll moved either first. */
export function slowDown(attempt: AttemptRow & { lastPolledAt: Date }, interval: number, now: Date): Promise<number> {
  return db().execute(`UPDATE "ClaimAttempt" SET "interval" = $1, "lastPolledAt" = $2 WHERE "id" = $3 AND "interval" = $4 AND "lastPolledAt" = $5`, [
    interval,
    now,
    attempt.id,
    attempt.interval,
    attempt.lastPolledAt,
  ]);
}

/** Claims this poll's slot; a parallel poll that saw the same lastPolledAt matches nothing. */
export function claimPollSlot(attempt: AttemptRow, now: Date): Promise<number> {
  return attempt.lastPolledAt === null
    ? db().execute(`UPDATE "ClaimAttempt" SET "lastPolledAt" = $1 WHERE "id" = $2 AND "status" = $3 AND "lastPolledAt" IS NULL`, [now, attempt.id, attempt.status])
    : db().execute(`UPDATE "ClaimAttempt" SET "lastPolledAt" = $1 WHERE "id" = $2 AND "status" = $3 AND "lastPolledAt" = $4`, [
        now,
        attempt.id,
        attempt.status,
        attempt.lastPolledAt,
      ]);
}

/** Counts a wrong user code on an initiated attempt; the new count, or null when the attempt was decided first. */
export async function countWrongCode(id: string): Promise<number | null> {
  const rows = await db().query<{ failedCodeCount: number }>(
    `UPDATE "ClaimAttempt" SET "failedCodeCount" = "failedCodeCount" + 1 WHERE "id" = $1 AND "status" = 'initiated' RETURNING "failedCodeCount"`,
    [id],
  );
  return rows[0] ? Number(rows[0].failedCodeCount) : null;
}

/**
 * Decides an initiated attempt (approval only while it has not expired); 0 when another request decided first. A
 * denial also ends an attempt waiting for its confirmation code (confirming). Either clears the network hash.
 */
export function decide(id: string, decision: "approved" | "denied", memberId: string, now: Date): Promise<number> {
  return decision === "approved"
    ? db().execute(
        `UPDATE "ClaimAttempt" SET "status" = 'approved', "decidedAt" = $1, "decidedByMemberId" = $2, "networkHash" = NULL WHERE "id" = $3 AND "status" = 'initiated' AND "expiresAt" > $1`,
        [now, memberId, id],
      )
    : db().execute(
        `UPDATE "ClaimAttempt" SET "status" = 'denied', "decidedAt" = $1, "decidedByMemberId" = $2, "networkHash" = NULL WHERE "id" = $3 AND "status" IN ('initiated', 'confirming')`,
        [now, memberId, id],
      );
}

// ---- Issue 53: the confirmation code of an unverified agent (lib/consent) and the approval page's context.

/** The member approved, and the agent must now send back the code shown to them: initiated → confirming; 0 when decided first or expired. */
export function beginConfirmation(id: string, codeHash: string, memberId: string, now: Date): Promise<number> {
  return db().execute(
    `UPDATE "ClaimAttempt" SET "status" = 'confirming', "confirmationCodeHash" = $1, "decidedAt" = $2, "decidedByMemberId" = $3
     WHERE "id" = $4 AND "status" = 'initiated' AND "expiresAt" > $2`,
    [codeHash, now, memberId, id],
  );
}

/**
 * The agent sent the right code: confirming → approved, and neither the code's hash nor the network's is needed any
 * more (a confirming attempt keeps the network hash, since the member may still report it); 0 when decided first or expired.
 */
export function completeConfirmation(id: string, now: Date): Promise<number> {
  return db().execute(
    `UPDATE "ClaimAttempt" SET "status" = 'approved', "confirmationCodeHash" = NULL, "networkHash" = NULL WHERE "id" = $1 AND "status" = 'confirming' AND "expiresAt" > $2`,
    [id, now],
  );
}

/** Counts a wrong confirmation code; the new count, or null when the attempt is no longer confirming. */
export async function countWrongConfirmation(id: string): Promise<number | null> {
  const rows = await db().query<{ confirmationFailures: number }>(
    `UPDATE "ClaimAttempt" SET "confirmationFailures" = "confirmationFailures" + 1 WHERE "id" = $1 AND "status" = 'confirming' RETURNING "confirmationFailures"`,
    [id],
  );
  return rows[0] ? Number(rows[0].confirmationFailures) : null;
}

/** A confirming attempt's stored code hash and the member who approved it; null once it is not confirming. */
export async function pendingConfirmation(id: string): Promise<{ codeHash: string; memberId: string } | null> {
  const rows = await db().query<{ confirmationCodeHash: string | null; decidedByMemberId: string | null }>(
    `SELECT "confirmationCodeHash", "decidedByMemberId" FROM "ClaimAttempt" WHERE "id" = $1 AND "status" = 'confirming'`,
    [id],
  );
  const row = rows[0];
  return row?.confirmationCodeHash && row.decidedByMemberId ? { codeHash: row.confirmationCodeHash, memberId: row.decidedByMemberId } : null;
}

/** When an attempt was made and the keyed hash of the network it came from (null once decided, or unknown). */
export async function attemptContext(id: string): Promise<{ createdAt: Date; networkHash: string | null } | null> {
  const rows = await db().query<{ createdAt: unknown; networkHash: string | null }>(`SELECT "createdAt", "networkHash" FROM "ClaimAttempt" WHERE "id" = $1`, [id]);
  return rows[0] ? { createdAt: readDate(rows[0].createdAt), networkHash: rows[0].networkHash } : null;
}

/** Registrations whose attempts this member decided (for the member's audit log). */
export async function registrationsDecidedBy(memberId: string): Promise<string[]> {
  const rows = await db().query<{ registrationId: string }>(`SELECT DISTINCT "registrationId" FROM "ClaimAttempt" WHERE "decidedByMemberId" = $1`, [memberId]);
  return rows.map((row) => row.registrationId);
}

/**
 * The janitor: removes up to `limit` attempts that were closed (replaced by a refresh) or expired undecided
 * (initiated, or confirming: never confirmed) before `cutoff`, and their network hash with them; the number removed. Decided attempts stay with their registration (a member's audit log
 * reads who decided). With `cutoff` a full outer-claim lifetime back, the registration's outer claim has
 * ended too, so a poll or refresh answers exactly as it did before the row went.
 */
export function deleteEndedAttemptsBefore(cutoff: Date, limit: number): Promise<number> {
  return db().execute(
    `DELETE FROM "ClaimAttempt" WHERE "id" IN (SELECT "id" FROM "ClaimAttempt" WHERE "status" IN ('closed', 'initiated', 'confirming') AND "expiresAt" < $1 LIMIT $2)`,
    [cutoff, limit],
  );
}
