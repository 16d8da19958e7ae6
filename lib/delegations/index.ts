// A member's agent delegations (CONTRACT.md §8 "/account"): listing them, and cancelling one so that its
// access tokens fail at once, its assertion is refused at exchange and its registration reads "cancelled".
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { recordAudit } from "@/lib/audit";
import { transaction } from "@/lib/db";
import { revokeDelegationTokens } from "@/lib/grants/access-tokens";
import { cancelActive, findMemberDelegation, listMemberDelegations } from "@/lib/grants/delegations";
import { agentOriginsOf } from "@/lib/grants/registrations";
import { markCancelled } from "@/lib/grants/registrations";
import type { Scope } from "@/lib/schemas/service-auth";
import { parseScopeString } from "@/lib/tokens";
import { webhookDelegationCancelled } from "@/lib/webhooks/emit";

export type DelegationStatus = "active" | "cancelled";

export interface DelegationSummary {
  id: string;
  registrationId: string;
  clientName: string | null;
  scopes: Scope[];
  approvedAt: Date;
  lastUsedAt: Date | null;
  status: DelegationStatus;
  cancelledAt: Date | null;
  /** The verified Web Bot Auth origin that signed the registration (issue 44), or null. */
  agentOrigin: string | null;
}

/** The member's delegations, newest approval first. */
export async function listDelegations(memberId: string): Promise<DelegationSummary[]> {
  const rows = await listMemberDelegations(memberId);
  const agentOrigins = await agentOriginsOf(rows.map((row) => row.registrationId));
  return rows.map((row) => ({
    id: row.id,
    registrationId: row.registrationId,
    clientName: row.clientName,
    scopes: parseScopeString(row.scope),
    approvedAt: row.approvedAt,
    lastUsedAt: row.lastUsedAt,
    status: row.status === "cancelled" ? "cancelled" : "active",
    cancelledAt: row.cancelledAt,
    agentOrigin: agentOrigins.get(row.registrationId) ?? null,
  }));
}

export type CancelOutcome =
  | { outcome: "cancelled"; revokedTokens: number }
  /** Cancelled before: nothing changes (idempotent). */
  | { outcome: "already_cancelled" }
  /** Unknown id, or another member's delegation: nothing changes, and nothing tells the two apart. */
  | { outcome: "not_found" };

/**
 * Cancels one of the member's delegations in one transaction: the delegation and its registration become
 * "cancelled", every access token of the delegation is revoked now, and a "cancellation" audit event is kept.
 * `cause`: the member revoked it (default), or its agent's verified origin was blocked (issue 53, lib/consent).
 */
export async function cancelDelegation(memberId: string, delegationId: string, clock: Clock = systemClock, cause: "member" | "agent_blocked" = "member"): Promise<CancelOutcome> {
  if (typeof delegationId !== "string" || delegationId.length === 0 || delegationId.length > 100) return { outcome: "not_found" };
  return transaction(async (): Promise<CancelOutcome> => {
    const now = clock.now();
    // The conditional update is the lock: of two racing cancellations only one sees count 1.
    if ((await cancelActive(memberId, delegationId, now)) === 0) {
      return (await findMemberDelegation(memberId, delegationId)) ? { outcome: "already_cancelled" } : { outcome: "not_found" };
    }
    const delegation = await findMemberDelegation(memberId, delegationId);
    if (!delegation) throw new Error("a delegation cancelled in this transaction was not found");
    await markCancelled(delegation.registrationId, now);
    const revokedTokens = await revokeDelegationTokens(delegationId, now);
    const detail = cause === "agent_blocked" ? `agent blocked${delegation.clientName ? `: ${delegation.clientName}` : ""}` : (delegation.clientName ?? null);
    await recordAudit({ type: "cancellation", memberId, registrationId: delegation.registrationId, detail }, clock);
    await webhookDelegationCancelled(delegation.registrationId, memberId, delegationId, revokedTokens, clock, cause === "agent_blocked" ? cause : undefined);
    return { outcome: "cancelled", revokedTokens };
  });
}
