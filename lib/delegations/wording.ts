// Plain-language wording shared by the approval page and /account.
import type { AuditType } from "@/lib/audit";
import type { Scope } from "@/lib/schemas/service-auth";
import type { DelegationStatus } from "./index";

const SCOPE_WORDS: Record<Scope, string> = {
  "agent.account.read": "See your account ID and your e-mail address (read only)",
  "agent.registrations.read": "See the status of this agent's own registration (read only)",
};

export function describeScope(scope: Scope): string {
  return SCOPE_WORDS[scope];
}

const AUDIT_WORDS: Record<AuditType, string> = {
  registration: "Agent asked for access",
  approval: "Access approved",
  denial: "Access denied",
  token_issue: "Access token issued",
  exchange: "Identity assertion exchanged for a token",
  revocation: "Access token revoked",
  cancellation: "Delegation revoked",
  sign_in_throttled: "Sign-in attempts slowed down after wrong passwords",
  report: "You reported a request you didn't start",
};

export function describeAuditType(type: AuditType): string {
  return AUDIT_WORDS[type];
}

/**
 * The member's action is "Revoke" (the /account button, CONTRACT.md §8): a delegation the member ended reads
 * "Revoked" on /account, as its log line reads "Delegation revoked" and the docs say. The API's status value stays
 * `cancelled` (CONTRACT.md §6), and so does the webhook event `delegation.cancelled`.
 */
const STATUS_WORDS: Record<DelegationStatus, string> = { active: "Active", cancelled: "Revoked" };

export function describeDelegationStatus(status: DelegationStatus): string {
  return STATUS_WORDS[status];
}

/** "9 minutes", "1 minute", "less than a minute": the time left before an attempt expires. */
export function describeTimeLeft(expiresAt: Date, now: Date): string {
  const seconds = Math.floor((expiresAt.getTime() - now.getTime()) / 1000);
  if (seconds < 60) return "less than a minute";
  const minutes = Math.floor(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** Fixed, unambiguous UTC rendering so server output does not depend on the host's locale or zone. */
export function formatUtc(date: Date | null): string {
  if (!date) return "never";
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** "Asked 2 minutes ago (14:03 UTC)": when a request was made, relative and absolute (issue 53, RFC 10027 §6.1.14). */
export function describeAsked(askedAt: Date, now: Date): string {
  const minutes = Math.floor(Math.max(0, now.getTime() - askedAt.getTime()) / 60_000);
  const ago = minutes < 1 ? "less than a minute ago" : minutes === 1 ? "1 minute ago" : minutes < 60 ? `${minutes} minutes ago` : `${Math.floor(minutes / 60)} h ago`;
  return `Asked ${ago} (${askedAt.toISOString().slice(11, 16)} UTC)`;
}

/** The line every page of an approval link carries (RFC 10027 §6.1.13, user education). */
export const PHISHING_WARNING = "Agent Gate never sends you approval links by e-mail or message. If someone sent you this link, deny it.";
