// Audit log (CONTRACT.md §11): what happened, when, to which account and registration; never a secret.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import type { DbTransaction } from "@/lib/db";
import { getDb } from "@/lib/db";

export const AUDIT_TYPES = ["registration", "approval", "denial", "token_issue", "exchange", "revocation", "cancellation"] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

export interface AuditEntry {
  type: AuditType;
  memberId?: string | null;
  registrationId?: string | null;
  /** Short, secret-free detail (e.g. the client name or scope). */
  detail?: string | null;
}

/** Records one event; pass the transaction so the event commits with the state change it describes. */
export async function recordAudit(entry: AuditEntry, tx?: DbTransaction, clock: Clock = systemClock): Promise<void> {
  const db = tx ?? getDb();
  await db.auditEvent.create({
    data: { type: entry.type, memberId: entry.memberId ?? null, registrationId: entry.registrationId ?? null, detail: entry.detail ?? null, at: clock.now() },
  });
}

export async function listAuditForMember(memberId: string, limit = 50) {
  return getDb().auditEvent.findMany({ where: { memberId }, orderBy: { at: "desc" }, take: limit });
}
