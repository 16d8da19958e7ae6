// The browser side of a claim attempt (CONTRACT.md §8): what /agent/authorize shows and how its form POST
// is checked before the decision reaches the claim lifecycle (lib/service-auth/lifecycle.ts).
import { getMemberSession, type MemberSession } from "@/lib/auth/options";
import { decideAttempt, viewAttemptForApproval, type AttemptForApproval, type DecisionOutcome } from "@/lib/service-auth/lifecycle";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl, getConfig } from "@/lib/config";
import { approvalPolicy, compareNetworks, type ApprovalPolicy, type NetworkComparison } from "@/lib/consent";
import { displayConfirmationCode, openConfirmationCode, sealConfirmationCode } from "@/lib/consent/confirmation";
import { attemptContext } from "@/lib/grants/claim-attempts";
import { sha256 } from "@/lib/crypto/secrets";
import { createFormToken, isSameOriginRequest, verifyFormToken, type FormBinding } from "@/lib/csrf";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { readForm } from "@/lib/http/body";
import { DECISION_FORM_LIMIT_BYTES } from "@/lib/http/form-limits";
import { formRefused, seeOther } from "@/lib/http/browser-responses";

export const AUTHORIZE_PATH = "/agent/authorize";
export const DECISION_PATH = "/agent/authorize/decision";
export const RESULT_PATH = "/agent/authorize/done";

/** The page's own address for an attempt token (the sign-in return path and every redirect back). */
export function authorizePath(attemptToken: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ claim_attempt_token: attemptToken, ...extra });
  return `${AUTHORIZE_PATH}?${query.toString()}`;
}

export function loginPathFor(returnPath: string): string {
  return `/login?callbackUrl=${encodeURIComponent(returnPath)}`;
}

/** The decision form is bound to the member and to this one attempt (by a hash of its token). */
export function decisionFormBinding(memberId: string, attemptToken: string): FormBinding {
  return { purpose: "agent-authorize-decision", memberId, subject: sha256(attemptToken) };
}

/** Issue 53 (RFC 10027 §6.1.14): when the request was made, and whether from the network the member is on now. */
export interface RequestContext {
  askedAt: Date;
  network: NetworkComparison;
}

/** What the owner's page adds to an open or confirming attempt (issue 53). */
export interface OwnerExtras {
  context: RequestContext | null;
  /** What the member may do with an open attempt: approve, or deny only (verified-only setting, blocked origin). */
  policy: ApprovalPolicy | null;
  /** A confirming attempt's code, "417 902", from this browser's sealed cookie; null when this browser did not approve it. */
  confirmationCode: string | null;
}

export type ApprovalView =
  | { kind: "sign_in"; loginPath: string }
  | { kind: "not_found" }
  | ({ kind: "ready"; member: MemberSession; attemptToken: string; attempt: AttemptForApproval; formToken: string | null } & OwnerExtras);

/** What the page knows of the browser that asks: its caller key (lib/http/client-ip.ts) and the confirmation cookie. */
export interface BrowserFacts {
  callerKey: string;
  confirmationCookie: string | undefined;
}

/** What the page renders for this request. Only the owner of an open or confirming attempt gets a form token. */
export async function loadApprovalView(rawToken: string | string[] | undefined, browser: BrowserFacts, clock: Clock = systemClock): Promise<ApprovalView> {
  const attemptToken = typeof rawToken === "string" ? rawToken : "";
  const member = await getMemberSession();
  // Signed-out visitors learn nothing about the link; they come back here after signing in.
  if (!member) return { kind: "sign_in", loginPath: loginPathFor(attemptToken && attemptToken.length <= 200 ? authorizePath(attemptToken) : AUTHORIZE_PATH) };
  if (!attemptToken) return { kind: "not_found" };
  const attempt = await viewAttemptForApproval(attemptToken, { id: member.memberId, email: member.email }, clock);
  const owned = (attempt.state === "open" || attempt.state === "confirming") && attempt.isOwner;
  const formToken = owned ? await createFormToken(decisionFormBinding(member.memberId, attemptToken), clock) : null;
  const extras = owned ? await ownerExtras(attempt, member.memberId, attemptToken, browser) : { context: null, policy: null, confirmationCode: null };
  return { kind: "ready", member, attemptToken, attempt, formToken, ...extras };
}

async function ownerExtras(attempt: AttemptForApproval, memberId: string, attemptToken: string, browser: BrowserFacts): Promise<OwnerExtras> {
  if (attempt.state === "confirming") {
    const code = await openConfirmationCode(browser.confirmationCookie, sha256(attemptToken), memberId);
    return { context: null, policy: null, confirmationCode: code === null ? null : displayConfirmationCode(code) };
  }
  if (attempt.state !== "open") return { context: null, policy: null, confirmationCode: null };
  const [context, policy] = await Promise.all([attemptContext(attempt.attemptId), approvalPolicy(memberId, attempt.agentOrigin)]);
  const network = await compareNetworks(context?.networkHash ?? null, browser.callerKey);
  return { context: context ? { askedAt: context.createdAt, network } : null, policy, confirmationCode: null };
}

/** Where the browser goes after a decision: a result page, or back to the page to show what it must. */
export function redirectAfterDecision(attemptToken: string, outcome: DecisionOutcome): string {
  switch (outcome.outcome) {
    case "approved":
    case "denied":
    case "locked":
    case "reported":
      return `${RESULT_PATH}?result=${outcome.outcome}`;
    case "wrong_code":
      return authorizePath(attemptToken, { error: "wrong_code", remaining: String(outcome.remainingTries) });
    default:
      // not_owner, not_found, expired, closed, already_decided, not_allowed, confirm (the page shows the code): the
      // page explains the attempt's state.
      return authorizePath(attemptToken);
  }
}

/** The cookie that carries a confirmation code to the page that shows it (lib/consent/confirmation.ts). */
export const CONFIRMATION_COOKIE = "agent-gate-confirmation";

/** Set-Cookie for the sealed code: only the approval page reads it, no script can, and it ends with the attempt. */
async function confirmationCookie(attemptToken: string, memberId: string, code: string, maxAgeSeconds: number): Promise<string> {
  const value = await sealConfirmationCode({ subject: sha256(attemptToken), memberId, code });
  const secure = getConfig().baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${CONFIRMATION_COOKIE}=${value}; Path=${AUTHORIZE_PATH}; Max-Age=${Math.max(1, maxAgeSeconds)}; HttpOnly; SameSite=Lax${secure}`;
}

/**
 * POST /agent/authorize/decision. Refused with 403 (nothing changes) unless the browser does not flag
 * it as cross-site AND it carries this member's form token for this attempt.
 */
export async function handleDecisionPost(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  if (!isSameOriginRequest(request.headers)) return formRefused();
  const form = await readForm(request, DECISION_FORM_LIMIT_BYTES);
  if (!form.ok) return formRefused(400);
  const attemptToken = form.value.get("claim_attempt_token") ?? "";
  const decision = form.value.get("decision");
  const userCode = form.value.get("user_code") ?? "";
  if (!attemptToken || attemptToken.length > 200 || (decision !== "approve" && decision !== "deny" && decision !== "report")) return formRefused(400);

  const member = await getMemberSession();
  if (!member) return seeOther(absoluteUrl(loginPathFor(authorizePath(attemptToken))));
  if (!(await verifyFormToken(decisionFormBinding(member.memberId, attemptToken), form.value.get("form_token"), clock))) return formRefused();

  // An empty code is a slip (Enter on an empty field), not a guess: it does not count toward the five.
  if (decision === "approve" && userCode.trim() === "") return seeOther(absoluteUrl(authorizePath(attemptToken, { error: "code_missing" })));

  const outcome = await decideAttempt({ attemptToken, member: { id: member.memberId, email: member.email }, userCode: userCode.slice(0, 40), decision }, clock);
  const reply = seeOther(absoluteUrl(redirectAfterDecision(attemptToken, outcome)));
  if (outcome.outcome !== "confirm") return reply;
  // The code lives as long as the attempt (ATTEMPT_LIFETIME_SECONDS from its start at most).
  const remaining = await remainingSeconds(attemptToken, member, clock);
  return { ...reply, headers: { ...reply.headers, "set-cookie": await confirmationCookie(attemptToken, member.memberId, outcome.confirmationCode, remaining) } };
}

async function remainingSeconds(attemptToken: string, member: MemberSession, clock: Clock): Promise<number> {
  const attempt = await viewAttemptForApproval(attemptToken, { id: member.memberId, email: member.email }, clock);
  return attempt.state === "confirming" ? Math.ceil((attempt.expiresAt.getTime() - clock.now().getTime()) / 1000) : 1;
}
