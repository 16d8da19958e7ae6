// The member's own audit log on /account: events recorded with the member's id, plus events of the
// registrations that concern the member (their delegations, and attempts they decided) whose rows have
// no member yet, such as "registration", written before anyone approved.
import type { AuditType } from "@/lib/audit";
import { AUDIT_TYPES } from "@/lib/audit";
import { getDb } from "@/lib/db";

export interface MemberAuditEntry {
  id: string;
  at: Date;
  type: AuditType;
  registrationId: string | null;
  clientName: string | null;
}

export async function listMemberAuditLog(memberId: string, limit = 100): Promise<MemberAuditEntry[]> {
  const db = getDb();
  const [delegations, decided] = await Promise.all([
    db.delegation.findMany({ where: { memberId }, select: { registrationId: true } }),
    db.claimAttempt.findMany({ where: { decidedByMemberId: memberId }, select: { registrationId: true } }),
  ]);
  const registrationIds = [...new Set([...delegations, ...decided].map((row) => row.registrationId))];
  const events = await db.auditEvent.findMany({
    where: registrationIds.length > 0 ? { OR: [{ memberId }, { registrationId: { in: registrationIds } }] } : { memberId },
    orderBy: [{ at: "desc" }, { id: "asc" }],
    take: limit,
  });
  const eventRegistrations = [...new Set(events.map((e) => e.registrationId).filter((id): id is string => id !== null))];
  const registrations = eventRegistrations.length
    ? await db.registration.findMany({ where: { id: { in: eventRegistrations } }, select: { id: true, clientName: true } })
    : [];
  const clientNames = new Map(registrations.map((r) => [r.id, r.clientName]));
  return events
    .filter((e): e is typeof e & { type: AuditType } => (AUDIT_TYPES as readonly string[]).includes(e.type))
    .map((e) => ({ id: e.id, at: e.at, type: e.type, registrationId: e.registrationId, clientName: e.registrationId ? (clientNames.get(e.registrationId) ?? null) : null }));
}
