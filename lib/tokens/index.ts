// Opaque aca_ access tokens (CONTRACT.md §5, §6, §11): CSPRNG secrets kept only as SHA-256, 3600 s,
// bound to one delegation; a token works only while its delegation is active.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { newSecret, sha256 } from "@/lib/crypto/secrets";
import { inCommitBatch, transaction, type CommitBatch } from "@/lib/db";
import { recordAudit } from "@/lib/audit";
import { SCOPES, type Scope } from "@/lib/schemas/service-auth";
import { findTokenGrant, findTokenOwner, insertAccessToken, revokeToken } from "@/lib/grants/access-tokens";
import { touchLastUsed } from "@/lib/grants/delegations";
import { webhookTokenRevoked } from "@/lib/webhooks/emit";

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** The protected resource every access token is issued for (SPEC.md "What the service does" 4). */
export function protectedResource(): string {
  return absoluteUrl("/api");
}

/** Space-separated scopes in canonical order. */
export function scopeString(scopes: readonly Scope[]): string {
  return SCOPES.filter((s) => scopes.includes(s)).join(" ");
}

/** The known scopes of a stored space-separated scope string, in canonical order. */
export function parseScopeString(scope: string): Scope[] {
  const parts = scope.split(" ");
  return SCOPES.filter((s) => parts.includes(s));
}

/**
 * What a token is bound to (issue 52): the RFC 7638 thumbprint of the DPoP key the token request proved (every use
 * must prove it, RFC 9449), and the Web Bot Auth origin of a signed registration (every use must be signed by a key
 * of its directory: draft-richer-oauth-httpsig's binding at issuance to the keys that signed the token request, its
 * keys here published in the agent's directory; content/docs/dpop.md says which parts are followed). Null: not bound.
 */
export interface TokenBinding {
  dpopJkt: string | null;
  agentOrigin: string | null;
}

export const UNBOUND: TokenBinding = { dpopJkt: null, agentOrigin: null };

export interface IssuedAccessToken {
  accessToken: string;
  expiresAt: Date;
  scope: string;
  binding: TokenBinding;
}

/** RFC 9449 §5: a DPoP-bound token's type is DPoP; every other token is a Bearer token. */
export function tokenTypeOf(binding: TokenBinding): "Bearer" | "DPoP" {
  return binding.dpopJkt === null ? "Bearer" : "DPoP";
}

/** Mints one access token inside the caller's transaction (the transition that grants it commits with it). */
export async function issueAccessToken(
  input: { registrationId: string; delegationId: string; memberId: string; scope: string; grant: "claim" | "jwt-bearer"; binding: TokenBinding },
  clock: Clock = systemClock,
): Promise<IssuedAccessToken> {
  const accessToken = newSecret("aca_");
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);
  const { binding, ...token } = input;
  await insertAccessToken({ tokenHash: sha256(accessToken), ...token, ...binding, resource: protectedResource(), expiresAt, now });
  // A claim-grant poll is a "token_issue"; a JWT-bearer exchange is an "exchange" (one event each).
  await recordAudit({ type: input.grant === "claim" ? "token_issue" : "exchange", memberId: input.memberId, registrationId: input.registrationId, detail: input.scope }, clock);
  return { accessToken, expiresAt, scope: input.scope, binding };
}

/** What a valid access token stands for. */
export interface VerifiedAccessToken {
  tokenId: string;
  memberId: string;
  memberEmail: string;
  registrationId: string;
  registrationType: string;
  registrationStatus: string;
  clientName: string | null;
  scopes: Scope[];
  scope: string;
  resource: string;
  expiresAt: Date;
  /** How every use must be presented (issue 52): a DPoP proof of this key, a signature of this agent origin. */
  binding: TokenBinding;
  delegationId: string;
  lastUsedAt: Date | null;
}

/** How stale a delegation's lastUsedAt may get before a read refreshes it. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The reads of one event-loop iteration record their uses together: on SQLite one commit and one sync of the log
 * for all of them rather than one each (a commit each held the event loop ~2 ms per read of a delegation not used
 * for a minute, when COMMIT still synced on the Node thread). Repeated uses of one delegation in the batch write
 * its latest time once.
 */
const LAST_USED_WRITES: CommitBatch<{ delegationId: string; at: Date }, void> = {
  async run(uses) {
    const latest = new Map<string, Date>();
    for (const { delegationId, at } of uses) {
      const seen = latest.get(delegationId);
      if (!seen || at.getTime() > seen.getTime()) latest.set(delegationId, at);
    }
    for (const [delegationId, at] of latest) await touchLastUsed(delegationId, at);
    return uses.map(() => undefined);
  },
};

/** Syntax of an aca_ token: prefix plus base64url (never query the database for garbage). */
const ACCESS_TOKEN_SYNTAX = /^aca_[A-Za-z0-9_-]{43,200}$/;

/**
 * The token's grant, or null when it is unknown, expired, revoked, for another resource, or its delegation is no
 * longer active. Writes nothing: a use is recorded (recordTokenUse) only once the request is accepted, its binding
 * checked (issue 52).
 */
export async function findValidAccessToken(token: string, clock: Clock = systemClock): Promise<VerifiedAccessToken | null> {
  if (!ACCESS_TOKEN_SYNTAX.test(token)) return null;
  const now = clock.now();
  // Every Bearer request looks its token up: one indexed join (the store).
  const row = await findTokenGrant(sha256(token));
  if (!row) return null;
  const { expiresAt } = row;
  if (row.revokedAt !== null || expiresAt.getTime() <= now.getTime()) return null;
  if (row.resource !== protectedResource()) return null;
  if (row.delegationStatus !== "active" || row.registrationStatus !== "active") return null;
  return {
    tokenId: row.id,
    memberId: row.memberId,
    memberEmail: row.memberEmail,
    registrationId: row.registrationId,
    registrationType: row.registrationType,
    registrationStatus: row.registrationStatus,
    clientName: row.clientName,
    scopes: parseScopeString(row.scope),
    scope: row.scope,
    resource: row.resource,
    expiresAt,
    binding: { dpopJkt: row.dpopJkt, agentOrigin: row.agentOrigin },
    delegationId: row.delegationId,
    lastUsedAt: row.lastUsedAt,
  };
}

/** Records an accepted use on the token's delegation (lastUsedAt). */
export async function recordTokenUse(grant: VerifiedAccessToken, clock: Clock = systemClock): Promise<void> {
  const now = clock.now();
  // "Last used" is shown to the member with minute precision: one write a minute per delegation, not one per read.
  const lastUsed = grant.lastUsedAt;
  if (lastUsed === null || now.getTime() - lastUsed.getTime() >= LAST_USED_RESOLUTION_MS || lastUsed.getTime() > now.getTime()) {
    await inCommitBatch(LAST_USED_WRITES, { delegationId: grant.delegationId, at: now });
  }
}

/** The token's grant (findValidAccessToken), its use recorded: for a caller with no binding of its own to check. */
export async function verifyAccessToken(token: string, clock: Clock = systemClock): Promise<VerifiedAccessToken | null> {
  const grant = await findValidAccessToken(token, clock);
  if (grant) await recordTokenUse(grant, clock);
  return grant;
}

/**
 * Revokes one access token (RFC 7009): immediate and idempotent; anything that is not a stored
 * access token (an unknown token, a registration id, a claim token) changes nothing.
 */
export async function revokeAccessToken(token: string, clock: Clock = systemClock): Promise<void> {
  if (!ACCESS_TOKEN_SYNTAX.test(token)) return;
  const now = clock.now();
  await transaction(async () => {
    const row = await findTokenOwner(sha256(token));
    if (!row) return;
    if ((await revokeToken(row.id, now)) !== 1) return;
    await recordAudit({ type: "revocation", memberId: row.memberId, registrationId: row.registrationId, detail: "access token revoked by its holder" }, clock);
    await webhookTokenRevoked(row.registrationId, row.memberId, clock);
  });
}
