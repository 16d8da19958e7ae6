// Audit log (CONTRACT.md §11): what happened, when, to which account and registration; never a secret.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import type { DbTransaction } from "@/lib/db";
import { getDb } from "@/lib/db";
import { isSqlExecutor, type SqlExecutor } from "@/lib/db/sql";
import { timeOrderedId } from "@/lib/ids";

export const AUDIT_TYPES = ["registration", "approval", "denial", "token_issue", "exchange", "revocation", "cancellation"] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

export interface AuditEntry {
  type: AuditType;
  memberId?: string | null;
  registrationId?: string | null;
  /** Short, secret-free detail (e.g. the client name or scope). */
  detail?: string | null;
}

/**
 * Records one event; pass the transaction (a Prisma one, or a raw one of lib/db/sql) so the event commits
 * with the state change it describes.
 */
export async function recordAudit(entry: AuditEntry, tx?: DbTransaction | SqlExecutor, clock: Clock = systemClock): Promise<void> {
  const row = { type: entry.type, memberId: entry.memberId ?? null, registrationId: entry.registrationId ?? null, detail: entry.detail ?? null, at: clock.now() };
  if (isSqlExecutor(tx)) {
    // Prisma fills @default(uuid()) in the client, so a raw insert supplies the id.
    await tx.execute(`INSERT INTO "AuditEvent" ("id", "at", "type", "memberId", "registrationId", "detail") VALUES ($1, $2, $3, $4, $5, $6)`, [
      timeOrderedId(),
      row.at,
      row.type,
      row.memberId,
      row.registrationId,
      row.detail,
    ]);
    return;
  }
  await (tx ?? getDb()).auditEvent.create({ data: row });
}

export async function listAuditForMember(memberId: string, limit = 50) {
  return getDb().auditEvent.findMany({ where: { memberId }, orderBy: { at: "desc" }, take: limit });
}
