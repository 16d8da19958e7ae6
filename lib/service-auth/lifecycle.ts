// THE claim lifecycle of a service_auth registration (SPEC.md "States and transitions", CONTRACT.md §3–5, §8, §11).
//
// A registration holds an outer claim (clm_, 24 h). Inside it lives one claim attempt at a time (cat_ link +
// 8-digit user code, 600 s). Attempt statuses in the database: initiated | confirming | approved | denied | closed
// (closed = replaced by a refresh; confirming = approved by a member who asked unverified agents for a confirmation
// code, until the agent sends it: issue 53, lib/consent); "expired" is derived from expiresAt. Registration statuses: pending |
// active | denied | expired | cancelled (cancelled is set by lib/delegations when the member revokes).
//
// Every transition is one transaction (lib/db), and every write that decides a race is a conditional update on
// the expected prior state whose row count is checked, so two approvals, two refreshes or two parallel polls
// can never both win (on PostgreSQL the losing update waits for the winner's row lock, then matches nothing).
// The rows are written only by the stores of lib/grants.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { constantTimeEqual, newSecret, randomDigits, sha256 } from "@/lib/crypto/secrets";
import { transaction } from "@/lib/db";
import { recordAudit } from "@/lib/audit";
import { getKeySet } from "@/lib/keys";
import { observeDecision, observeRegistration, observeTokenGrant } from "@/lib/observability/events";
import { findMemberByEmail } from "@/lib/members/store";
import { normalizeEmail } from "@/lib/members/normalize";
import type { Scope } from "@/lib/schemas/service-auth";
import { signIdentityAssertion, type AssertionClaims } from "@/lib/assertions";
import { issueAccessToken, parseScopeString, scopeString, type IssuedAccessToken, type TokenBinding } from "@/lib/tokens";
import * as attempts from "@/lib/grants/claim-attempts";
import type { AttemptRow, AttemptWithRegistration } from "@/lib/grants/claim-attempts";
import * as delegations from "@/lib/grants/delegations";
import * as registrations from "@/lib/grants/registrations";
import * as webhooks from "@/lib/webhooks/emit";
import { approvalPolicy, recordReport } from "@/lib/consent";
import { confirmationCodeMatches, hashConfirmationCode, MAX_WRONG_CONFIRMATION_CODES, newConfirmationCode } from "@/lib/consent/confirmation";

export const ATTEMPT_LIFETIME_SECONDS = 600;
export const OUTER_CLAIM_LIFETIME_SECONDS = 24 * 3600;
export const INITIAL_POLL_INTERVAL_SECONDS = 5;
export const SLOW_DOWN_STEP_SECONDS = 5;
/** The fifth wrong code closes the attempt as denied (RFC 8628 §5.1: few guesses per code lifetime). */
export const MAX_WRONG_CODES = 5;
export const USER_CODE_DIGITS = 8;

const CLAIM_TOKEN_SYNTAX = /^clm_[A-Za-z0-9_-]{43}$/;
const ATTEMPT_TOKEN_SYNTAX = /^cat_[A-Za-z0-9_-]{43}$/;

export function verificationUri(attemptToken: string): string {
  return absoluteUrl(`/agent/authorize?claim_attempt_token=${encodeURIComponent(attemptToken)}`);
}

export interface NewAttempt {
  attemptId: string;
  attemptToken: string;
  userCode: string;
  expiresAt: Date;
  interval: number;
}

/** A new attempt for the registration (inside the caller's transaction); `networkHash`: lib/consent's hash of the requesting network. */
async function createAttempt(registrationId: string, now: Date, networkHash: string | null = null): Promise<NewAttempt> {
  const attemptToken = newSecret("cat_");
  const userCode = randomDigits(USER_CODE_DIGITS);
  const expiresAt = new Date(now.getTime() + ATTEMPT_LIFETIME_SECONDS * 1000);
  const attemptId = await attempts.insertAttempt({
    registrationId,
    attemptTokenHash: sha256(attemptToken),
    userCodeHash: sha256(userCode),
    expiresAt,
    interval: INITIAL_POLL_INTERVAL_SECONDS,
    now,
    networkHash,
  });
  return { attemptId, attemptToken, userCode, expiresAt, interval: INITIAL_POLL_INTERVAL_SECONDS };
}

const isPast = (instant: Date, now: Date): boolean => instant.getTime() <= now.getTime();

// ---------------------------------------------------------------- registration

export interface NewRegistration {
  registrationId: string;
  claimToken: string;
  claimExpiresAt: Date;
  scopes: Scope[];
  attempt: NewAttempt;
}

/** POST /agent/identity: a registration with its outer claim and first attempt. Unknown e-mails get one too (nobody can approve it). */
export async function registerClaim(
  input: {
    loginHint: string;
    clientName: string | null;
    scopes: readonly Scope[];
    agent?: { origin: string; thumbprint: string } | null;
    /** Issue 52: the DPoP key the registration proved (RFC 7638 thumbprint): every poll must then prove it too. */
    dpopJkt?: string | null;
    /** Issue 53: the keyed hash of the requesting network (lib/consent networkHash), kept with the attempt until it is decided. */
    network?: string | null;
  },
  clock: Clock = systemClock,
): Promise<NewRegistration> {
  const now = clock.now();
  const loginHint = normalizeEmail(input.loginHint);
  const scope = scopeString(input.scopes);
  const claimToken = newSecret("clm_");
  const claimExpiresAt = new Date(now.getTime() + OUTER_CLAIM_LIFETIME_SECONDS * 1000);
  return transaction(async () => {
    const registrationId = await registrations.insertRegistration({
      loginHint,
      clientName: input.clientName,
      scope,
      claimTokenHash: sha256(claimToken),
      claimExpiresAt,
      now,
      agent: input.agent ?? null,
      dpopJkt: input.dpopJkt ?? null,
    });
    const attempt = await createAttempt(registrationId, now, input.network);
    const member = await findMemberByEmail(loginHint);
    await recordAudit({ type: "registration", memberId: member?.id ?? null, registrationId, detail: input.clientName ? `${input.clientName}: ${scope}` : scope }, clock);
    if (member) await webhooks.webhookDelegationRequested(registrationId, member.id, clock);
    observeRegistration(registrationId);
    return { registrationId, claimToken, claimExpiresAt, scopes: parseScopeString(scope), attempt };
  });
}

// ---------------------------------------------------------------- refresh

/** `email_mismatch`: a known claim token with another e-mail (answered as CONTRACT.md §4's invalid_claim_token, in its own words). */
export type RefreshOutcome =
  { ok: true; registrationId: string; attempt: NewAttempt } | { ok: false; error: "invalid_claim_token" | "email_mismatch" | "claim_expired" | "claimed_or_in_flight" };

/** POST /agent/identity/claim: a new attempt once the previous one expired; the old one closes at once. */
export async function refreshClaim(input: { claimToken: string; email: string; network?: string | null }, clock: Clock = systemClock): Promise<RefreshOutcome> {
  if (!CLAIM_TOKEN_SYNTAX.test(input.claimToken)) return { ok: false, error: "invalid_claim_token" };
  const now = clock.now();
  return transaction(async (): Promise<RefreshOutcome> => {
    const registration = await registrations.findRegistrationByClaimTokenHash(sha256(input.claimToken));
    if (!registration) return { ok: false, error: "invalid_claim_token" };
    if (!constantTimeEqual(normalizeEmail(input.email), registration.loginHint)) return { ok: false, error: "email_mismatch" };
    if (isPast(registration.claimExpiresAt, now)) {
      if ((await registrations.markExpiredIfPending(registration.id, now)) === 1) await webhooks.webhookDelegationExpired(registration.id, clock);
      return { ok: false, error: "claim_expired" };
    }
    if (registration.status !== "pending") return { ok: false, error: "claimed_or_in_flight" };
    const previous = await attempts.currentAttempt(registration.id);
    if (previous) {
      // An attempt that ran out waiting for its confirmation code (confirming) is refreshed like an undecided one.
      if ((previous.status !== "initiated" && previous.status !== "confirming") || !isPast(previous.expiresAt, now)) return { ok: false, error: "claimed_or_in_flight" };
      // The race decider: of two refreshes (or a refresh and a late approval) only one closes this attempt.
      if ((await attempts.closeInitiated(previous.id)) !== 1) return { ok: false, error: "claimed_or_in_flight" };
    }
    const attempt = await createAttempt(registration.id, now, input.network);
    return { ok: true, registrationId: registration.id, attempt };
  });
}

// ---------------------------------------------------------------- polling (claim grant)

export type PollOutcome =
  | { ok: true; accessToken: string; expiresIn: number; scope: string; identityAssertion: string; assertionExpiresAt: Date; binding: TokenBinding }
  | { ok: false; error: "invalid_grant" | "authorization_pending" | "access_denied" | "expired_token" }
  /** The registration was signed (issue 44) and this poll is not signed by a key of the same origin: invalid_grant. */
  | { ok: false; error: "agent_binding" }
  /** Issue 53: approved, waiting for the confirmation code the member was shown; a wrong one; the third wrong one (denied). */
  | { ok: false; error: "confirmation_required" }
  | { ok: false; error: "confirmation_denied" }
  | { ok: false; error: "wrong_confirmation_code"; remainingTries: number }
  /** The registration is bound to a DPoP key (issue 52) and this poll proves another key or none: invalid_grant. */
  | { ok: false; error: "dpop_binding" }
  | { ok: false; error: "slow_down"; interval: number };

const POLL_ROUNDS = 3;

/** What the poll's transaction decided; an approval's assertion is signed after the commit (CPU work, no lock needed). */
type PollDecision = Exclude<PollOutcome, { ok: true }> | { ok: true; token: IssuedAccessToken; claims: AssertionClaims };

const tooSoon = (attempt: AttemptRow, now: Date): attempt is AttemptRow & { lastPolledAt: Date } =>
  attempt.lastPolledAt !== null && now.getTime() - attempt.lastPolledAt.getTime() < attempt.interval * 1000;

/** What a token request proved besides its grant: its verified Web Bot Auth origin and its DPoP key (null: none). */
export interface PresentedProofs {
  signedBy: string | null;
  dpopJkt: string | null;
}

async function decidePoll(claimTokenHash: string, proofs: PresentedProofs, confirmationCode: string | undefined, now: Date, clock: Clock): Promise<PollDecision> {
  const registration = await registrations.findRegistrationByClaimTokenHash(claimTokenHash);
  if (!registration) return { ok: false, error: "invalid_grant" };
  // Before anything moves (pace, slot, token): a leaked claim token alone is useless for a signed or DPoP-bound registration.
  if (registration.agentOrigin !== null && registration.agentOrigin !== proofs.signedBy) return { ok: false, error: "agent_binding" };
  if (registration.dpopJkt !== null && registration.dpopJkt !== proofs.dpopJkt) return { ok: false, error: "dpop_binding" };
  if (isPast(registration.claimExpiresAt, now)) {
    if ((await registrations.markExpiredIfPending(registration.id, now)) === 1) await webhooks.webhookDelegationExpired(registration.id, clock);
    return { ok: false, error: "invalid_grant" };
  }
  for (let round = 0; round < POLL_ROUNDS; round++) {
    const attempt = await attempts.currentAttempt(registration.id);
    if (!attempt) return { ok: false, error: "invalid_grant" };
    // Pace (RFC 8628 §3.5), also after approval: too soon → the interval grows by 5 and is remembered.
    if (tooSoon(attempt, now)) {
      const interval = attempt.interval + SLOW_DOWN_STEP_SECONDS;
      if ((await attempts.slowDown(attempt, interval, now)) === 1) return { ok: false, error: "slow_down", interval };
      continue;
    }
    // Claim this poll slot; a parallel poll that saw the same lastPolledAt matches nothing and goes round again.
    if ((await attempts.claimPollSlot(attempt, now)) !== 1) continue;
    switch (attempt.status) {
      case "denied":
        return { ok: false, error: "access_denied" };
      case "initiated":
        return { ok: false, error: isPast(attempt.expiresAt, now) ? "expired_token" : "authorization_pending" };
      case "confirming": {
        const refused = await confirmApproval(attempt, registration, confirmationCode, now, clock);
        return refused ?? issueClaimTokens(registration, proofs, clock);
      }
      case "approved":
        return issueClaimTokens(registration, proofs, clock);
      default:
        return { ok: false, error: "invalid_grant" };
    }
  }
  // Lost every round to parallel polls: they were all too fast for this one.
  const latest = await attempts.currentAttempt(registration.id);
  return { ok: false, error: "slow_down", interval: latest?.interval ?? INITIAL_POLL_INTERVAL_SECONDS };
}

/** A fresh access token and the assertion's claims for an approved registration (unless the member revoked it), bound as the poll proved. */
async function issueClaimTokens(registration: registrations.RegistrationRow, proofs: PresentedProofs, clock: Clock): Promise<PollDecision> {
  const delegation = await delegations.findDelegationOfRegistration(registration.id);
  // Revoked by the member (lib/delegations) → the claim is unusable.
  if (!delegation || delegation.status !== "active") return { ok: false, error: "invalid_grant" };
  // Bound as the poll proved (RFC 9449 §5): its DPoP key, and the agent origin of a signed registration.
  const binding: TokenBinding = { dpopJkt: proofs.dpopJkt, agentOrigin: registration.agentOrigin };
  const token = await issueAccessToken(
    { registrationId: registration.id, delegationId: delegation.id, memberId: delegation.memberId, scope: delegation.scope, grant: "claim", binding },
    clock,
  );
  // The assertion is bound to the poll's DPoP key too (cnf.jkt), as a public client's refresh token is (RFC 9449 §5).
  const claims = { memberId: delegation.memberId, registrationId: registration.id, scope: delegation.scope, clientName: delegation.clientName, jkt: proofs.dpopJkt };
  return { ok: true, token, claims };
}

/**
 * Issue 53: a poll on an approval that waits for the agent's confirmation code. Null when the code is right (the
 * approval is now complete); otherwise the answer: confirmation_required without a code, a wrong code counted, the
 * third one denying the request. The poll's pace was already checked, so guesses come no faster than the interval.
 */
async function confirmApproval(
  attempt: AttemptRow,
  registration: registrations.RegistrationRow,
  sentCode: string | undefined,
  now: Date,
  clock: Clock,
): Promise<Exclude<PollDecision, { ok: true }> | null> {
  if (isPast(attempt.expiresAt, now)) return { ok: false, error: "expired_token" };
  if (sentCode === undefined) return { ok: false, error: "confirmation_required" };
  const pending = await attempts.pendingConfirmation(attempt.id);
  if (!pending) return { ok: false, error: "invalid_grant" };
  if (!(await confirmationCodeMatches(attempt.id, sentCode, pending.codeHash))) {
    const failures = await attempts.countWrongConfirmation(attempt.id);
    if (failures === null) return { ok: false, error: "invalid_grant" };
    if (failures < MAX_WRONG_CONFIRMATION_CODES) return { ok: false, error: "wrong_confirmation_code", remainingTries: MAX_WRONG_CONFIRMATION_CODES - failures };
    const detail = `closed after ${MAX_WRONG_CONFIRMATION_CODES} wrong confirmation codes`;
    await closeAsDenied(attempt, pending.memberId, now, clock, detail, "too_many_wrong_confirmation_codes");
    return { ok: false, error: "confirmation_denied" };
  }
  if ((await attempts.completeConfirmation(attempt.id, now)) !== 1) return { ok: false, error: "invalid_grant" };
  await grantApproval({ registrationId: registration.id, clientName: registration.clientName, scope: registration.scope }, pending.memberId, now, clock);
  return null;
}

/**
 * POST /oauth2/token with the claim grant. `proofs`: the poll's verified Web Bot Auth origin (issue 44) and DPoP key
 * (issue 52), null when it carries none. `confirmationCode`: what the agent sent of the code the member was shown (issue 53).
 */
export async function pollClaim(
  claimToken: string,
  clock: Clock = systemClock,
  proofs: PresentedProofs = { signedBy: null, dpopJkt: null },
  confirmationCode?: string,
): Promise<PollOutcome> {
  if (!CLAIM_TOKEN_SYNTAX.test(claimToken)) return { ok: false, error: "invalid_grant" };
  // Load signing keys outside the transaction: the first load may itself use the database.
  await getKeySet();
  const now = clock.now();
  const decision = await transaction(() => decidePoll(sha256(claimToken), proofs, confirmationCode, now, clock));
  observeTokenGrant("claim", decision.ok ? "approved" : decision.error);
  if (!decision.ok) return decision;
  const assertion = await signIdentityAssertion(decision.claims, clock);
  return {
    ok: true,
    accessToken: decision.token.accessToken,
    expiresIn: Math.round((decision.token.expiresAt.getTime() - now.getTime()) / 1000),
    scope: decision.token.scope,
    identityAssertion: assertion.assertion,
    assertionExpiresAt: assertion.expiresAt,
    binding: decision.token.binding,
  };
}

// ---------------------------------------------------------------- the human decision (used by /agent/authorize)

export type AttemptForApproval =
  | {
      state: "open";
      attemptId: string;
      registrationId: string;
      clientName: string | null;
      /** The Web Bot Auth origin that signed the registration (issue 44); null when unsigned. */
      agentOrigin: string | null;
      scopes: Scope[];
      expiresAt: Date;
      isOwner: boolean;
    }
  /** Issue 53: approved, waiting for the agent to send the confirmation code shown to the member. */
  | { state: "confirming"; attemptId: string; registrationId: string; expiresAt: Date; isOwner: boolean }
  | { state: "not_found" | "expired" | "closed" | "approved" | "denied" };

function findAttempt(attemptToken: string): Promise<AttemptWithRegistration | null> {
  return attempts.findAttemptByTokenHash(sha256(attemptToken));
}

type AttemptState = "open" | "confirming" | "not_found" | "expired" | "closed" | "approved" | "denied";

function attemptState(attempt: AttemptWithRegistration | null, now: Date): AttemptState {
  if (!attempt) return "not_found";
  if (attempt.status === "closed") return "closed";
  if (attempt.status === "approved") return "approved";
  if (attempt.status === "denied") return "denied";
  // An attempt created late in the outer claim ends with the claim.
  if (isPast(attempt.expiresAt, now) || isPast(attempt.registration.claimExpiresAt, now)) return "expired";
  return attempt.status === "confirming" ? "confirming" : "open";
}

function isOwner(attempt: AttemptWithRegistration, member: { email: string }): boolean {
  return constantTimeEqual(normalizeEmail(member.email), attempt.registration.loginHint);
}

/** What the approval page shows for a cat_ link and a signed-in member. Reads only. */
export async function viewAttemptForApproval(attemptToken: string, member: { id: string; email: string }, clock: Clock = systemClock): Promise<AttemptForApproval> {
  if (!ATTEMPT_TOKEN_SYNTAX.test(attemptToken)) return { state: "not_found" };
  const attempt = await findAttempt(attemptToken);
  const state = attemptState(attempt, clock.now());
  if (state === "confirming" && attempt)
    return { state, attemptId: attempt.id, registrationId: attempt.registrationId, expiresAt: attempt.expiresAt, isOwner: isOwner(attempt, member) };
  if (state !== "open" || !attempt) return { state: state === "open" || state === "confirming" ? "not_found" : state };
  return {
    state: "open",
    attemptId: attempt.id,
    registrationId: attempt.registrationId,
    clientName: attempt.registration.clientName,
    agentOrigin: attempt.registration.agentOrigin,
    scopes: parseScopeString(attempt.registration.scope),
    expiresAt: attempt.expiresAt,
    isOwner: isOwner(attempt, member),
  };
}

export type DecisionOutcome =
  | { outcome: "approved" | "denied" }
  /** Issue 53: denied with "I didn't start this"; the member's settings or a blocked origin allow Deny only; approved, with the confirmation code to show. */
  | { outcome: "reported" }
  | { outcome: "not_allowed"; reason: "verified_only" | "agent_blocked" }
  | { outcome: "confirm"; confirmationCode: string }
  | { outcome: "wrong_code"; remainingTries: number }
  | { outcome: "locked" } // fifth wrong code: attempt closed as denied
  | { outcome: "not_owner" } // member e-mail (normalized) differs from login hint: nothing changes, attempt stays pending
  | { outcome: "not_found" | "expired" | "closed" | "already_decided" };

/** Typed codes may carry the spaces or dashes a human adds while copying. */
function normalizeUserCode(code: string): string {
  return code.replace(/[\s-]/g, "");
}

/** Closes an undecided attempt as denied (a refusal, the fifth wrong code, a report…); false when another request decided first. */
async function closeAsDenied(
  attempt: { id: string; registrationId: string },
  memberId: string,
  now: Date,
  clock: Clock,
  detail: string,
  reason: webhooks.DenialReason = detail.startsWith("closed after") ? "too_many_wrong_codes" : "refused",
): Promise<boolean> {
  if ((await attempts.decide(attempt.id, "denied", memberId, now)) !== 1) return false;
  await registrations.moveRegistration(attempt.registrationId, "pending", "denied", now);
  await recordAudit({ type: "denial", memberId, registrationId: attempt.registrationId, detail }, clock);
  await webhooks.webhookDelegationDenied(attempt.registrationId, memberId, reason, clock);
  observeDecision("denied", attempt.registrationId, memberId);
  return true;
}

/**
 * The owner's decision on an open attempt. Deny needs no code (a member can always refuse); Approve needs
 * the exact user code, and a wrong code counts toward the five that close the attempt as denied.
 */
export async function decideAttempt(
  input: { attemptToken: string; member: { id: string; email: string }; userCode: string; decision: "approve" | "deny" | "report" },
  clock: Clock = systemClock,
): Promise<DecisionOutcome> {
  if (!ATTEMPT_TOKEN_SYNTAX.test(input.attemptToken)) return { outcome: "not_found" };
  const now = clock.now();
  const memberId = input.member.id;
  return transaction(async (): Promise<DecisionOutcome> => {
    const attempt = await findAttempt(input.attemptToken);
    const state = attemptState(attempt, now);
    if (!attempt || state === "not_found") return { outcome: "not_found" };
    if (state === "approved" || state === "denied") return { outcome: "already_decided" };
    if (state === "closed" || state === "expired") return { outcome: state };
    if (!isOwner(attempt, input.member)) return { outcome: "not_owner" };

    if (input.decision === "deny") {
      return (await closeAsDenied(attempt, memberId, now, clock, "denied by the member")) ? { outcome: "denied" } : { outcome: "already_decided" };
    }
    if (input.decision === "report") {
      // The network hash is read before the denial clears it: the report keeps it (lib/consent).
      const context = await attempts.attemptContext(attempt.id);
      if (!(await closeAsDenied(attempt, memberId, now, clock, "reported by the member as not started by them", "reported"))) return { outcome: "already_decided" };
      const { clientName, agentOrigin } = attempt.registration;
      await recordReport({ memberId, registrationId: attempt.registrationId, clientName, agentOrigin, networkHash: context?.networkHash ?? null }, clock);
      return { outcome: "reported" };
    }
    if (state === "confirming") return { outcome: "already_decided" };
    // Issue 53: the member's settings and the operator's blocks may allow Deny only.
    const policy = await approvalPolicy(memberId, attempt.registration.agentOrigin);
    if (!policy.approvable) return { outcome: "not_allowed", reason: policy.reason };

    const code = normalizeUserCode(input.userCode);
    const codeMatches = /^\d{8}$/.test(code) && constantTimeEqual(sha256(code), attempt.userCodeHash);
    if (!codeMatches) {
      const failedCodeCount = await attempts.countWrongCode(attempt.id);
      if (failedCodeCount === null) return { outcome: "already_decided" };
      if (failedCodeCount >= MAX_WRONG_CODES) {
        await closeAsDenied(attempt, memberId, now, clock, `closed after ${MAX_WRONG_CODES} wrong codes`);
        return { outcome: "locked" };
      }
      return { outcome: "wrong_code", remainingTries: MAX_WRONG_CODES - failedCodeCount };
    }

    if (policy.confirmationCode) {
      // The approval completes when the agent sends this code back (pollClaim); until then the registration is pending.
      const confirmationCode = newConfirmationCode();
      const codeHash = await hashConfirmationCode(attempt.id, confirmationCode);
      return (await attempts.beginConfirmation(attempt.id, codeHash, memberId, now)) === 1 ? { outcome: "confirm", confirmationCode } : { outcome: "already_decided" };
    }

    // The race decider: of two approvals (or an approval and a refusal) exactly one moves the attempt.
    if ((await attempts.decide(attempt.id, "approved", memberId, now)) !== 1) return { outcome: "already_decided" };
    await grantApproval({ registrationId: attempt.registrationId, clientName: attempt.registration.clientName, scope: attempt.registration.scope }, memberId, now, clock);
    return { outcome: "approved" };
  });
}

/** An approved attempt's consequences: the registration is active, the delegation exists, and the approval is recorded and announced. */
async function grantApproval(registration: { registrationId: string; clientName: string | null; scope: string }, memberId: string, now: Date, clock: Clock): Promise<void> {
  const { registrationId, clientName, scope } = registration;
  if ((await registrations.moveRegistration(registrationId, "pending", "active", now)) !== 1) throw new Error("registration was not pending while its attempt was open");
  await delegations.insertDelegation({ registrationId, memberId, clientName, scope, approvedAt: now });
  await recordAudit({ type: "approval", memberId, registrationId, detail: scope }, clock);
  await webhooks.webhookDelegationApproved(registrationId, memberId, clock);
  observeDecision("approved", registrationId, memberId);
}

// ---------------------------------------------------------------- registration status for readers

/** The registration status a reader should see: a pending registration whose outer claim ran out is expired. */
export function effectiveRegistrationStatus(registration: { status: string; claimExpiresAt: Date }, clock: Clock = systemClock): string {
  return registration.status === "pending" && isPast(registration.claimExpiresAt, clock.now()) ? "expired" : registration.status;
}
