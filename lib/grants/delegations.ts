// Store of the Delegation table: the one module that writes it. A delegation exists once a member approved a
// registration (one per registration): active | cancelled (the member revoked it on /account).
import { randomUUID } from "node:crypto";
import { db, readDate, readOptionalDate } from "@/lib/db";

export interface DelegationRow {
  id: string;
  registrationId: string;
  memberId: string;
  clientName: string | null;
  scope: string;
  status: string;
  approvedAt: Date;
  lastUsedAt: Date | null;
  cancelledAt: Date | null;
}

/** A row as the driver returns it: DateTime columns still raw. */
type RawDelegation = Omit<DelegationRow, "approvedAt" | "lastUsedAt" | "cancelledAt"> & { approvedAt: unknown; lastUsedAt: unknown; cancelledAt: unknown };

const COLUMNS = `"id", "registrationId", "memberId", "clientName", "scope", "status", "approvedAt", "lastUsedAt", "cancelledAt"`;

function toRow(raw: RawDelegation): DelegationRow {
  return { ...raw, approvedAt: readDate(raw.approvedAt), lastUsedAt: readOptionalDate(raw.lastUsedAt), cancelledAt: readOptionalDate(raw.cancelledAt) };
}

export async function insertDelegation(input: { registrationId: string; memberId: string; clientName: string | null; scope: string; approvedAt: Date }): Promise<string> {
  const id = randomUUID();
  await db().execute(`INSERT INTO "Delegation" ("id", "registrationId", "memberId", "clientName", "scope", "status", "approvedAt") VALUES ($1, $2, $3, $4, $5, 'active', $6)`, [
    id,
    input.registrationId,
    input.memberId,
    input.clientName,
    input.scope,
    input.approvedAt,
  ]);
  return id;
}

/** The delegation of a registration, with the registration's status (the poll and the JWT-bearer exchange check both). */
export async function findDelegationOfRegistration(registrationId: string): Promise<(DelegationRow & { registrationStatus: string; agentOrigin: string | null }) | null> {
  const rows = await db().query<RawDelegation & { registrationStatus: string; agentOrigin: string | null }>(
    `SELECT d."id", d."registrationId", d."memberId", d."clientName", d."scope", d."status", d."approvedAt", d."lastUsedAt", d."cancelledAt", r."status" AS "registrationStatus", r."agentOrigin"
     FROM "Delegation" d JOIN "Registration" r ON r."id" = d."registrationId"
     WHERE d."registrationId" = $1`,
    [registrationId],
  );
  const raw = rows[0];
  return raw ? { ...toRow(raw), registrationStatus: raw.registrationStatus, agentOrigin: raw.agentOrigin } : null;
}

export async function findMemberDelegation(memberId: string, id: string): Promise<DelegationRow | null> {
  const rows = await db().query<RawDelegation>(`SELECT ${COLUMNS} FROM "Delegation" WHERE "id" = $1 AND "memberId" = $2`, [id, memberId]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** The member's delegations, newest approval first. */
export async function listMemberDelegations(memberId: string): Promise<DelegationRow[]> {
  const rows = await db().query<RawDelegation>(`SELECT ${COLUMNS} FROM "Delegation" WHERE "memberId" = $1 ORDER BY "approvedAt" DESC, "id" ASC`, [memberId]);
  return rows.map(toRow);
}

/** Cancels an active delegation of the member; 0 when it is unknown, another member's, or cancelled already. */
export function cancelActive(memberId: string, id: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "Delegation" SET "status" = 'cancelled', "cancelledAt" = $1 WHERE "id" = $2 AND "memberId" = $3 AND "status" = 'active'`, [now, id, memberId]);
}

/** Records a use ("last used" on /account). */
export function touchLastUsed(id: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "Delegation" SET "lastUsedAt" = $1 WHERE "id" = $2 AND "status" = 'active'`, [now, id]);
}

/** Registrations of the member's delegations (for the member's audit log). */
export async function registrationsDelegatedBy(memberId: string): Promise<string[]> {
  const rows = await db().query<{ registrationId: string }>(`SELECT "registrationId" FROM "Delegation" WHERE "memberId" = $1`, [memberId]);
  return rows.map((row) => row.registrationId);
}

/** The active delegations of registrations signed by this verified agent origin (issue 53: blocking an origin cancels them). */
export async function activeDelegationsOfOrigin(origin: string): Promise<{ id: string; memberId: string }[]> {
  return db().query<{ id: string; memberId: string }>(
    `SELECT d."id", d."memberId" FROM "Delegation" d JOIN "Registration" r ON r."id" = d."registrationId"
     WHERE r."agentOrigin" = $1 AND d."status" = 'active' ORDER BY d."approvedAt", d."id"`,
    [origin],
  );
}
