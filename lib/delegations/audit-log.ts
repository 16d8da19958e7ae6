// The member's own audit log on /account: events recorded with the member's id, plus events of the
// registrations that concern the member (their delegations, and attempts they decided) whose rows have
// no member yet, such as "registration", written before anyone approved.
import type { AuditType } from "@/lib/audit";
import { AUDIT_TYPES, listAuditEvents } from "@/lib/audit";
import { registrationsDecidedBy } from "@/lib/grants/claim-attempts";
import { registrationsDelegatedBy } from "@/lib/grants/delegations";
import { agentOriginsOf, clientNamesOf } from "@/lib/grants/registrations";

export interface MemberAuditEntry {
  id: string;
  at: Date;
  type: AuditType;
  registrationId: string | null;
  clientName: string | null;
  /** The verified Web Bot Auth origin that signed the registration (issue 44), or null. */
  agentOrigin: string | null;
}

const isAuditType = (type: string): type is AuditType => (AUDIT_TYPES as readonly string[]).includes(type);

export async function listMemberAuditLog(memberId: string, limit = 100): Promise<MemberAuditEntry[]> {
  const [delegated, decided] = await Promise.all([registrationsDelegatedBy(memberId), registrationsDecidedBy(memberId)]);
  const registrationIds = [...new Set([...delegated, ...decided])];
  const events = await listAuditEvents(memberId, registrationIds, limit);
  const ids = [...new Set(events.map((e) => e.registrationId).filter((id): id is string => id !== null))];
  const [clientNames, agentOrigins] = await Promise.all([clientNamesOf(ids), agentOriginsOf(ids)]);
  return events.flatMap((e) => {
    const type = e.type;
    if (!isAuditType(type)) return [];
    return [
      {
        id: e.id,
        at: e.at,
        type,
        registrationId: e.registrationId,
        clientName: e.registrationId ? (clientNames.get(e.registrationId) ?? null) : null,
        agentOrigin: e.registrationId ? (agentOrigins.get(e.registrationId) ?? null) : null,
      },
    ];
  });
}
