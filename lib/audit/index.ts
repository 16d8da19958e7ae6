// Store of the AuditEvent table (CONTRACT.md §11): what happened, when, to which account and registration;
// never a secret. Recorded inside the transaction of the state change it describes (it joins it).
// "sign_in_throttled": a sign-in refused before its password was checked (lib/auth/sign-in.ts); detail is the
// counter that refused it, never the e-mail or the password. "report": the member reported a request they did not
// start (issue 53, lib/consent).
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, readDate } from "@/lib/db";
import { firstTimeOrderedIdAt, timeOrderedId } from "@/lib/ids";

export const AUDIT_TYPES = ["registration", "approval", "denial", "token_issue", "exchange", "revocation", "cancellation", "sign_in_throttled", "report"] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

export interface AuditEntry {
  type: AuditType;
  memberId?: string | null;
  registrationId?: string | null;
  /** Short, secret-free detail (e.g. the client name or scope). */
  detail?: string | null;
}

export interface AuditEventRow {
  id: string;
  at: Date;
  type: string;
  memberId: string | null;
  registrationId: string | null;
  detail: string | null;
}

/** Records one event, in the caller's transaction when there is one. */
export async function recordAudit(entry: AuditEntry, clock: Clock = systemClock): Promise<void> {
  const at = clock.now();
  await db().execute(`INSERT INTO "AuditEvent" ("id", "at", "type", "memberId", "registrationId", "detail") VALUES ($1, $2, $3, $4, $5, $6)`, [
    timeOrderedId(at),
    at,
    entry.type,
    entry.memberId ?? null,
    entry.registrationId ?? null,
    entry.detail ?? null,
  ]);
}

/** Events recorded with the member's id or about one of these registrations, newest first. */
export async function listAuditEvents(memberId: string, registrationIds: readonly string[], limit: number): Promise<AuditEventRow[]> {
  const params: (string | number)[] = [memberId, ...registrationIds, limit];
  const inList = registrationIds.map((_, i) => `$${i + 2}`).join(", ");
  const where = registrationIds.length > 0 ? `"memberId" = $1 OR "registrationId" IN (${inList})` : `"memberId" = $1`;
  const rows = await db().query<Omit<AuditEventRow, "at"> & { at: unknown }>(
    `SELECT "id", "at", "type", "memberId", "registrationId", "detail" FROM "AuditEvent" WHERE ${where} ORDER BY "at" DESC, "id" ASC LIMIT $${params.length}`,
    params,
  );
  return rows.map((row) => ({ ...row, at: readDate(row.at) }));
}

/**
 * The janitor: removes up to `limit` events recorded before `cutoff` (AUDIT_RETENTION_DAYS); the number removed.
 * An event's id is made from its time (lib/ids): the primary key's range finds them, with no index on "at".
 */
export function deleteAuditEventsBefore(cutoff: Date, limit: number): Promise<number> {
  return db().execute(`DELETE FROM "AuditEvent" WHERE "id" IN (SELECT "id" FROM "AuditEvent" WHERE "id" < $2 AND "at" < $1 LIMIT $3)`, [
    cutoff,
    firstTimeOrderedIdAt(cutoff),
    limit,
  ]);
}
