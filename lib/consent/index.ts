// Consent phishing defences (issue 53, RFC 10027 "Cross-Device Flows: Security Best Current Practice"): what a
// member's settings and the operator's blocks allow on the approval page, the reports of requests members did not
// start, and blocking a verified agent origin. The claim lifecycle (lib/service-auth/lifecycle.ts) asks this module
// before an approval and calls it for a report; the rows are written only by this folder's stores
// (settings.ts, reports.ts, blocks.ts) and lib/grants.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { recordAudit } from "@/lib/audit";
import { getConfig } from "@/lib/config";
import { transaction } from "@/lib/db";
import { cancelDelegation } from "@/lib/delegations";
import { activeDelegationsOfOrigin } from "@/lib/grants/delegations";
import { webhookDelegationReported } from "@/lib/webhooks/emit";
import { blockOf, listBlocks, lockOrigin, markBlocked, markUnblocked, type OriginBlock } from "./blocks";
import { distinctReportersOf, insertReport, reportsByNetwork, reportsByOrigin, type NewReport, type ReportGroup } from "./reports";
import { consentSettingsOf } from "./settings";

export { compareNetworks, networkHash, type NetworkComparison } from "./network";
export { consentSettingsOf, DEFAULT_CONSENT_SETTINGS, type ConsentSettings } from "./settings";
export type { OriginBlock } from "./blocks";

/** Reports within this window count toward an automatic block. */
export const REPORT_WINDOW_MS = 24 * 3600 * 1000;
/** The janitor removes reports older than this. */
export const REPORT_RETENTION_DAYS = 90;

export async function isOriginBlocked(origin: string): Promise<boolean> {
  return (await blockOf(origin))?.status === "blocked";
}

/**
 * What the member may do with an open request: approve it (with a confirmation code for an unsigned agent when they
 * asked for one), or only deny it, because they accept verified agents only or the agent's origin is blocked.
 */
export type ApprovalPolicy = { approvable: true; confirmationCode: boolean } | { approvable: false; reason: "verified_only" | "agent_blocked" };

export async function approvalPolicy(memberId: string, agentOrigin: string | null): Promise<ApprovalPolicy> {
  if (agentOrigin !== null && (await isOriginBlocked(agentOrigin))) return { approvable: false, reason: "agent_blocked" };
  const settings = await consentSettingsOf(memberId);
  if (agentOrigin === null && settings.verifiedAgentsOnly) return { approvable: false, reason: "verified_only" };
  return { approvable: true, confirmationCode: agentOrigin === null && settings.confirmUnverifiedAgents };
}

export interface BlockOutcome {
  /** False when the origin was blocked already (nothing more was cancelled). */
  newlyBlocked: boolean;
  cancelledDelegations: number;
  revokedTokens: number;
}

/**
 * Blocks a verified origin in one transaction (joining the caller's): its new registrations are refused
 * (403 agent_blocked), its requests can no longer be approved, and every active delegation it holds is cancelled
 * (tokens revoked, delegation.cancelled with reason agent_blocked).
 */
export async function blockOrigin(origin: string, source: OriginBlock["source"], clock: Clock = systemClock): Promise<BlockOutcome> {
  return transaction(async () => {
    const newlyBlocked = (await markBlocked(origin, source, clock.now())) === 1;
    let cancelledDelegations = 0;
    let revokedTokens = 0;
    for (const delegation of await activeDelegationsOfOrigin(origin)) {
      const outcome = await cancelDelegation(delegation.memberId, delegation.id, clock, "agent_blocked");
      if (outcome.outcome !== "cancelled") continue;
      cancelledDelegations += 1;
      revokedTokens += outcome.revokedTokens;
    }
    return { newlyBlocked, cancelledDelegations, revokedTokens };
  });
}

/** Lifts a block (delegations it cancelled stay cancelled); false when the origin was not blocked. */
export async function unblockOrigin(origin: string, clock: Clock = systemClock): Promise<boolean> {
  return (await markUnblocked(origin, clock.now())) === 1;
}

/**
 * Records "I didn't start this" (in the caller's transaction, after the request was denied): the report, the
 * member's activity line and the delegation.reported event; a verified origin reported by enough distinct members
 * within 24 hours (AGENT_REPORTS_BLOCK_THRESHOLD, 0: never) since any unblocking is blocked. Never an address: one
 * is shared by too many agents to block on reports.
 */
export async function recordReport(report: NewReport, clock: Clock = systemClock): Promise<{ reportId: string; originBlocked: boolean }> {
  const now = clock.now();
  const reportId = await insertReport(report, now);
  await recordAudit({ type: "report", memberId: report.memberId, registrationId: report.registrationId, detail: report.agentOrigin }, clock);
  const originBlocked = report.agentOrigin !== null && (await blockWhenReportedEnough(report.agentOrigin, now, clock));
  await webhookDelegationReported(report.registrationId, report.memberId, reportId, originBlocked, clock);
  return { reportId, originBlocked };
}

async function blockWhenReportedEnough(origin: string, now: Date, clock: Clock): Promise<boolean> {
  const threshold = getConfig().agentReportsBlockThreshold;
  if (threshold === 0) return false;
  const block = await lockOrigin(origin, now);
  if (block.status === "blocked") return false;
  const windowStart = now.getTime() - REPORT_WINDOW_MS;
  const since = new Date(block.status === "unblocked" ? Math.max(windowStart, block.changedAt.getTime() + 1) : windowStart);
  if ((await distinctReportersOf(origin, since)) < threshold) return false;
  return (await blockOrigin(origin, "reports", clock)).newlyBlocked;
}

export interface ReportsOverview {
  since: Date;
  byOrigin: (ReportGroup & { block: OriginBlock | null })[];
  byNetwork: ReportGroup[];
  blocks: OriginBlock[];
}

/** What `npm run agents:reports` prints: reports since `since` by verified origin and by network hash, and every block. */
export async function reportsOverview(since: Date): Promise<ReportsOverview> {
  const [byOrigin, byNetwork, blocks] = await Promise.all([reportsByOrigin(since), reportsByNetwork(since), listBlocks()]);
  const blockOfOrigin = new Map(blocks.map((b) => [b.origin, b]));
  return { since, byOrigin: byOrigin.map((group) => ({ ...group, block: group.key === null ? null : (blockOfOrigin.get(group.key) ?? null) })), byNetwork, blocks };
}
