// THE claim lifecycle of a service_auth registration (SPEC.md "States and transitions", CONTRACT.md §3–5, §8, §11).
//
// A registration holds an outer claim (clm_, 24 h). Inside it lives one claim attempt at a time (cat_ link +
// 8-digit user code, 600 s). Attempt statuses in the database: initiated | approved | denied | closed
// (closed = replaced by a refresh); "expired" is derived from expiresAt. Registration statuses: pending |
// active | denied | expired | cancelled (cancelled is set by lib/delegations when the member revokes).
//
// Every transition is one transaction, and every write that decides a race is a conditional update on the
// expected prior state whose row count is checked, so two approvals, two refreshes or two parallel polls
// can never both win (on PostgreSQL the losing update waits for the winner's row lock, then matches nothing).
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { constantTimeEqual, newSecret, randomDigits, sha256 } from "@/lib/crypto/secrets";
import type { DbTransaction } from "@/lib/db";
import { getDb, transaction } from "@/lib/db";
import { readDate, readOptionalDate, transaction as sqlTransaction, type SqlExecutor } from "@/lib/db/sql";
import { recordAudit } from "@/lib/audit";
import { getKeySet } from "@/lib/keys";
import { normalizeEmail } from "@/lib/members/normalize";
import type { Scope } from "@/lib/schemas/service-auth";
import { signIdentityAssertion, type AssertionClaims } from "@/lib/assertions";
import { issueAccessToken, parseScopeString, scopeString, type IssuedAccessToken } from "@/lib/tokens";

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

async function createAttempt(tx: DbTransaction, registrationId: string, now: Date): Promise<NewAttempt> {
  const attemptToken = newSecret("cat_");
  const userCode = randomDigits(USER_CODE_DIGITS);
  const expiresAt = new Date(now.getTime() + ATTEMPT_LIFETIME_SECONDS * 1000);
  const row = await tx.claimAttempt.create({
    data: {
      registrationId,
      attemptTokenHash: sha256(attemptToken),
      userCodeHash: sha256(userCode),
      status: "initiated",
      expiresAt,
      interval: INITIAL_POLL_INTERVAL_SECONDS,
      createdAt: now,
    },
  });
  return { attemptId: row.id, attemptToken, userCode, expiresAt, interval: row.interval };
}

/** The registration's one live attempt (every other one is closed). */
function currentAttempt(tx: DbTransaction, registrationId: string) {
  return tx.claimAttempt.findFirst({ where: { registrationId, status: { not: "closed" } }, orderBy: { createdAt: "desc" } });
}

const isPast = (instant: Date, now: Date): boolean => instant.getTime() <= now.getTime();

/** An outer claim that ran out without approval: the registration is expired (set lazily on the next touch). */
async function markExpiredIfPending(tx: DbTransaction, registrationId: string, now: Date): Promise<void> {
  await tx.registration.updateMany({ where: { id: registrationId, status: "pending" }, data: { status: "expired", updatedAt: now } });
}

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
  input: { loginHint: string; clientName: string | null; scopes: readonly Scope[] },
  clock: Clock = systemClock,
): Promise<NewRegistration> {
  const now = clock.now();
  const loginHint = normalizeEmail(input.loginHint);
  const scope = scopeString(input.scopes);
  const claimToken = newSecret("clm_");
  const claimExpiresAt = new Date(now.getTime() + OUTER_CLAIM_LIFETIME_SECONDS * 1000);
  return transaction(async (tx) => {
    const registration = await tx.registration.create({
      data: {
        registrationType: "service_auth",
        loginHint,
        clientName: input.clientName,
        scope,
        claimTokenHash: sha256(claimToken),
        claimExpiresAt,
        status: "pending",
        createdAt: now,
        updatedAt: now,
      },
    });
    const attempt = await createAttempt(tx, registration.id, now);
    const member = await tx.member.findUnique({ where: { email: loginHint }, select: { id: true } });
    await recordAudit({ type: "registration", memberId: member?.id ?? null, registrationId: registration.id, detail: input.clientName ? `${input.clientName}: ${scope}` : scope }, tx, clock);
    return { registrationId: registration.id, claimToken, claimExpiresAt, scopes: parseScopeString(scope), attempt };
  });
}

// ---------------------------------------------------------------- refresh

export type RefreshOutcome =
  | { ok: true; registrationId: string; attempt: NewAttempt }
  | { ok: false; error: "invalid_claim_token" | "claim_expired" | "claimed_or_in_flight" };

/** POST /agent/identity/claim: a new attempt once the previous one expired; the old one closes at once. */
export async function refreshClaim(input: { claimToken: string; email: string }, clock: Clock = systemClock): Promise<RefreshOutcome> {
  if (!CLAIM_TOKEN_SYNTAX.test(input.claimToken)) return { ok: false, error: "invalid_claim_token" };
  const now = clock.now();
  return transaction(async (tx): Promise<RefreshOutcome> => {
    const registration = await tx.registration.findUnique({ where: { claimTokenHash: sha256(input.claimToken) } });
    if (!registration || !constantTimeEqual(normalizeEmail(input.email), registration.loginHint)) return { ok: false, error: "invalid_claim_token" };
    if (isPast(registration.claimExpiresAt, now)) {
      await markExpiredIfPending(tx, registration.id, now);
      return { ok: false, error: "claim_expired" };
    }
    if (registration.status !== "pending") return { ok: false, error: "claimed_or_in_flight" };
    const previous = await currentAttempt(tx, registration.id);
    if (previous) {
      if (previous.status !== "initiated" || !isPast(previous.expiresAt, now)) return { ok: false, error: "claimed_or_in_flight" };
      // The race decider: of two refreshes (or a refresh and a late approval) only one closes this attempt.
      const closed = await tx.claimAttempt.updateMany({ where: { id: previous.id, status: "initiated" }, data: { status: "closed" } });
      if (closed.count !== 1) return { ok: false, error: "claimed_or_in_flight" };
    }
    const attempt = await createAttempt(tx, registration.id, now);
    return { ok: true, registrationId: registration.id, attempt };
  });
}

// ---------------------------------------------------------------- polling (claim grant)

export type PollOutcome =
  | { ok: true; accessToken: string; expiresIn: number; scope: string; identityAssertion: string; assertionExpiresAt: Date }
  | { ok: false; error: "invalid_grant" | "authorization_pending" | "access_denied" | "expired_token" }
  | { ok: false; error: "slow_down"; interval: number };

const POLL_ROUNDS = 3;

/** The registration's one live attempt, as the poll needs it (raw SQL: the poll is a hot path, bench/README.md). */
interface PollAttempt {
  id: string;
  status: string;
  expiresAt: Date;
  interval: number;
  lastPolledAt: Date | null;
}

async function currentPollAttempt(q: SqlExecutor, registrationId: string): Promise<PollAttempt | null> {
  const rows = await q.query<{ id: string; status: string; expiresAt: unknown; interval: number; lastPolledAt: unknown }>(
    `SELECT "id", "status", "expiresAt", "interval", "lastPolledAt" FROM "ClaimAttempt"
     WHERE "registrationId" = $1 AND "status" <> 'closed' ORDER BY "createdAt" DESC LIMIT 1`,
    [registrationId],
  );
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, status: row.status, expiresAt: readDate(row.expiresAt), interval: Number(row.interval), lastPolledAt: readOptionalDate(row.lastPolledAt) };
}

/** What the poll's transaction decided; an approval's assertion is signed after the commit (CPU work, no lock needed). */
type PollDecision = Exclude<PollOutcome, { ok: true }> | { ok: true; token: IssuedAccessToken; claims: AssertionClaims };

async function decidePoll(q: SqlExecutor, claimTokenHash: string, now: Date, clock: Clock): Promise<PollDecision> {
  const registrations = await q.query<{ id: string; claimExpiresAt: unknown }>(`SELECT "id", "claimExpiresAt" FROM "Registration" WHERE "claimTokenHash" = $1`, [claimTokenHash]);
  const registration = registrations[0];
  if (!registration) return { ok: false, error: "invalid_grant" };
  if (isPast(readDate(registration.claimExpiresAt), now)) {
    await q.execute(`UPDATE "Registration" SET "status" = 'expired', "updatedAt" = $1 WHERE "id" = $2 AND "status" = 'pending'`, [now, registration.id]);
    return { ok: false, error: "invalid_grant" };
  }
  for (let round = 0; round < POLL_ROUNDS; round++) {
    const attempt = await currentPollAttempt(q, registration.id);
    if (!attempt) return { ok: false, error: "invalid_grant" };
    // Pace (RFC 8628 §3.5), also after approval: too soon → the interval grows by 5 and is remembered.
    if (attempt.lastPolledAt && now.getTime() - attempt.lastPolledAt.getTime() < attempt.interval * 1000) {
      const interval = attempt.interval + SLOW_DOWN_STEP_SECONDS;
      const slowed = await q.execute(
        `UPDATE "ClaimAttempt" SET "interval" = $1, "lastPolledAt" = $2 WHERE "id" = $3 AND "interval" = $4 AND "lastPolledAt" = $5`,
        [interval, now, attempt.id, attempt.interval, attempt.lastPolledAt],
      );
      if (slowed === 1) return { ok: false, error: "slow_down", interval };
      continue;
    }
    // Claim this poll slot; a parallel poll that saw the same lastPolledAt matches nothing and goes round again.
    const claimed =
      attempt.lastPolledAt === null
        ? await q.execute(`UPDATE "ClaimAttempt" SET "lastPolledAt" = $1 WHERE "id" = $2 AND "status" = $3 AND "lastPolledAt" IS NULL`, [now, attempt.id, attempt.status])
        : await q.execute(`UPDATE "ClaimAttempt" SET "lastPolledAt" = $1 WHERE "id" = $2 AND "status" = $3 AND "lastPolledAt" = $4`, [
            now,
            attempt.id,
            attempt.status,
            attempt.lastPolledAt,
          ]);
    if (claimed !== 1) continue;
    switch (attempt.status) {
      case "denied":
        return { ok: false, error: "access_denied" };
      case "initiated":
        return { ok: false, error: isPast(attempt.expiresAt, now) ? "expired_token" : "authorization_pending" };
      case "approved": {
        const delegations = await q.query<{ id: string; memberId: string; scope: string; status: string; clientName: string | null }>(
          `SELECT "id", "memberId", "scope", "status", "clientName" FROM "Delegation" WHERE "registrationId" = $1`,
          [registration.id],
        );
        const delegation = delegations[0];
        // Cancelled by the member (lib/delegations) → the claim is unusable.
        if (!delegation || delegation.status !== "active") return { ok: false, error: "invalid_grant" };
        const token = await issueAccessToken(
          q,
          { registrationId: registration.id, delegationId: delegation.id, memberId: delegation.memberId, scope: delegation.scope, grant: "claim" },
          clock,
        );
        return { ok: true, token, claims: { memberId: delegation.memberId, registrationId: registration.id, scope: delegation.scope, clientName: delegation.clientName } };
      }
      default:
        return { ok: false, error: "invalid_grant" };
    }
  }
  // Lost every round to parallel polls: they were all too fast for this one.
  const latest = await currentPollAttempt(q, registration.id);
  return { ok: false, error: "slow_down", interval: latest?.interval ?? INITIAL_POLL_INTERVAL_SECONDS };
}

/** POST /oauth2/token with the claim grant. */
export async function pollClaim(claimToken: string, clock: Clock = systemClock): Promise<PollOutcome> {
  if (!CLAIM_TOKEN_SYNTAX.test(claimToken)) return { ok: false, error: "invalid_grant" };
  // Load signing keys outside the transaction: the first load may itself use the database.
  await getKeySet();
  const now = clock.now();
  const decision = await sqlTransaction((q) => decidePoll(q, sha256(claimToken), now, clock));
  if (!decision.ok) return decision;
  const assertion = await signIdentityAssertion(decision.claims, clock);
  return {
    ok: true,
    accessToken: decision.token.accessToken,
    expiresIn: Math.round((decision.token.expiresAt.getTime() - now.getTime()) / 1000),
    scope: decision.token.scope,
    identityAssertion: assertion.assertion,
    assertionExpiresAt: assertion.expiresAt,
  };
}

// ---------------------------------------------------------------- the human decision (used by /agent/authorize)

export type AttemptForApproval =
  | { state: "open"; attemptId: string; registrationId: string; clientName: string | null; scopes: Scope[]; expiresAt: Date; isOwner: boolean }
  | { state: "not_found" | "expired" | "closed" | "approved" | "denied" };

type AttemptWithRegistration = NonNullable<Awaited<ReturnType<typeof findAttempt>>>;

function findAttempt(tx: DbTransaction, attemptToken: string) {
  return tx.claimAttempt.findUnique({ where: { attemptTokenHash: sha256(attemptToken) }, include: { registration: true } });
}

type AttemptState = "open" | "not_found" | "expired" | "closed" | "approved" | "denied";

function attemptState(attempt: AttemptWithRegistration | null, now: Date): AttemptState {
  if (!attempt) return "not_found";
  if (attempt.status === "closed") return "closed";
  if (attempt.status === "approved") return "approved";
  if (attempt.status === "denied") return "denied";
  // An attempt created late in the outer claim ends with the claim.
  if (isPast(attempt.expiresAt, now) || isPast(attempt.registration.claimExpiresAt, now)) return "expired";
  return "open";
}

function isOwner(attempt: AttemptWithRegistration, member: { email: string }): boolean {
  return constantTimeEqual(normalizeEmail(member.email), attempt.registration.loginHint);
}

/** What the approval page shows for a cat_ link and a signed-in member. Reads only. */
export async function viewAttemptForApproval(attemptToken: string, member: { id: string; email: string }, clock: Clock = systemClock): Promise<AttemptForApproval> {
  if (!ATTEMPT_TOKEN_SYNTAX.test(attemptToken)) return { state: "not_found" };
  const attempt = await findAttempt(getDb(), attemptToken);
  const state = attemptState(attempt, clock.now());
  if (state !== "open" || !attempt) return { state: state === "open" ? "not_found" : state };
  return {
    state: "open",
    attemptId: attempt.id,
    registrationId: attempt.registrationId,
    clientName: attempt.registration.clientName,
    scopes: parseScopeString(attempt.registration.scope),
    expiresAt: attempt.expiresAt,
    isOwner: isOwner(attempt, member),
  };
}

export type DecisionOutcome =
  | { outcome: "approved" | "denied" }
  | { outcome: "wrong_code"; remainingTries: number }
  | { outcome: "locked" } // fifth wrong code: attempt closed as denied
  | { outcome: "not_owner" } // member e-mail (normalized) differs from login hint: nothing changes, attempt stays pending
  | { outcome: "not_found" | "expired" | "closed" | "already_decided" };

/** Typed codes may carry the spaces or dashes a human adds while copying. */
function normalizeUserCode(code: string): string {
  return code.replace(/[\s-]/g, "");
}

/** Closes an initiated attempt as denied (a refusal or the fifth wrong code); false when another request decided first. */
async function closeAsDenied(tx: DbTransaction, attempt: AttemptWithRegistration, memberId: string, now: Date, clock: Clock, detail: string): Promise<boolean> {
  const denied = await tx.claimAttempt.updateMany({
    where: { id: attempt.id, status: "initiated" },
    data: { status: "denied", decidedAt: now, decidedByMemberId: memberId },
  });
  if (denied.count !== 1) return false;
  await tx.registration.updateMany({ where: { id: attempt.registrationId, status: "pending" }, data: { status: "denied", updatedAt: now } });
  await recordAudit({ type: "denial", memberId, registrationId: attempt.registrationId, detail }, tx, clock);
  return true;
}

/**
 * The owner's decision on an open attempt. Deny needs no code (a member can always refuse); Approve needs
 * the exact user code, and a wrong code counts toward the five that close the attempt as denied.
 */
export async function decideAttempt(
  input: { attemptToken: string; member: { id: string; email: string }; userCode: string; decision: "approve" | "deny" },
  clock: Clock = systemClock,
): Promise<DecisionOutcome> {
  if (!ATTEMPT_TOKEN_SYNTAX.test(input.attemptToken)) return { outcome: "not_found" };
  const now = clock.now();
  const memberId = input.member.id;
  return transaction(async (tx): Promise<DecisionOutcome> => {
    const attempt = await findAttempt(tx, input.attemptToken);
    const state = attemptState(attempt, now);
    if (!attempt || state === "not_found") return { outcome: "not_found" };
    if (state === "approved" || state === "denied") return { outcome: "already_decided" };
    if (state === "closed" || state === "expired") return { outcome: state };
    if (!isOwner(attempt, input.member)) return { outcome: "not_owner" };

    if (input.decision === "deny") {
      return (await closeAsDenied(tx, attempt, memberId, now, clock, "denied by the member")) ? { outcome: "denied" } : { outcome: "already_decided" };
    }

    const code = normalizeUserCode(input.userCode);
    const codeMatches = /^\d{8}$/.test(code) && constantTimeEqual(sha256(code), attempt.userCodeHash);
    if (!codeMatches) {
      const counted = await tx.claimAttempt.updateMany({ where: { id: attempt.id, status: "initiated" }, data: { failedCodeCount: { increment: 1 } } });
      if (counted.count !== 1) return { outcome: "already_decided" };
      const { failedCodeCount } = await tx.claimAttempt.findUniqueOrThrow({ where: { id: attempt.id }, select: { failedCodeCount: true } });
      if (failedCodeCount >= MAX_WRONG_CODES) {
        await closeAsDenied(tx, attempt, memberId, now, clock, `closed after ${MAX_WRONG_CODES} wrong codes`);
        return { outcome: "locked" };
      }
      return { outcome: "wrong_code", remainingTries: MAX_WRONG_CODES - failedCodeCount };
    }

    // The race decider: of two approvals (or an approval and a refusal) exactly one moves the attempt.
    const approved = await tx.claimAttempt.updateMany({
      where: { id: attempt.id, status: "initiated", expiresAt: { gt: now } },
      data: { status: "approved", decidedAt: now, decidedByMemberId: memberId },
    });
    if (approved.count !== 1) return { outcome: "already_decided" };
    const activated = await tx.registration.updateMany({ where: { id: attempt.registrationId, status: "pending" }, data: { status: "active", updatedAt: now } });
    if (activated.count !== 1) throw new Error("registration was not pending while its attempt was open");
    await tx.delegation.create({
      data: {
        registrationId: attempt.registrationId,
        memberId,
        clientName: attempt.registration.clientName,
        scope: attempt.registration.scope,
        status: "active",
        approvedAt: now,
      },
    });
    await recordAudit({ type: "approval", memberId, registrationId: attempt.registrationId, detail: attempt.registration.scope }, tx, clock);
    return { outcome: "approved" };
  });
}

// ---------------------------------------------------------------- registration status for readers

/** The registration status a reader should see: a pending registration whose outer claim ran out is expired. */
export function effectiveRegistrationStatus(registration: { status: string; claimExpiresAt: Date }, clock: Clock = systemClock): string {
  return registration.status === "pending" && isPast(registration.claimExpiresAt, clock.now()) ? "expired" : registration.status;
}
