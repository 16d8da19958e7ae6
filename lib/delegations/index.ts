// A member's agent delegations (CONTRACT.md §8 "/account"): listing them, and cancelling one so that its
// access tokens fail at once, its assertion is refused at exchange and its registration reads "cancelled".
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { recordAudit } from "@/lib/audit";
import { getDb, transaction } from "@/lib/db";
import type { Scope } from "@/lib/schemas/service-auth";
import { parseScopeString } from "@/lib/tokens";

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
}

/** The member's delegations, newest approval first. */
export async function listDelegations(memberId: string): Promise<DelegationSummary[]> {
  const rows = await getDb().delegation.findMany({ where: { memberId }, orderBy: [{ approvedAt: "desc" }, { id: "asc" }] });
  return rows.map((row) => ({
    id: row.id,
    registrationId: row.registrationId,
    clientName: row.clientName,
    scopes: parseScopeString(row.scope),
    approvedAt: row.approvedAt,
    lastUsedAt: row.lastUsedAt,
    status: row.status === "cancelled" ? "cancelled" : "active",
    cancelledAt: row.cancelledAt,
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
 */
export async function cancelDelegation(memberId: string, delegationId: string, clock: Clock = systemClock): Promise<CancelOutcome> {
  if (typeof delegationId !== "string" || delegationId.length === 0 || delegationId.length > 100) return { outcome: "not_found" };
  return transaction(async (tx) => {
    const now = clock.now();
    // The conditional update is the lock: of two racing cancellations only one sees count 1.
    const { count } = await tx.delegation.updateMany({ where: { id: delegationId, memberId, status: "active" }, data: { status: "cancelled", cancelledAt: now } });
    if (count === 0) {
      const existing = await tx.delegation.findFirst({ where: { id: delegationId, memberId }, select: { id: true } });
      return existing ? { outcome: "already_cancelled" } : { outcome: "not_found" };
    }
    const delegation = await tx.delegation.findUniqueOrThrow({ where: { id: delegationId } });
    await tx.registration.update({ where: { id: delegation.registrationId }, data: { status: "cancelled" } });
    const revoked = await tx.accessToken.updateMany({ where: { delegationId, revokedAt: null }, data: { revokedAt: now } });
    await recordAudit({ type: "cancellation", memberId, registrationId: delegation.registrationId, detail: delegation.clientName ?? null }, tx, clock);
    return { outcome: "cancelled", revokedTokens: revoked.count };
  });
}
