// Opaque aca_ access tokens (CONTRACT.md §5, §6, §11): CSPRNG secrets kept only as SHA-256, 3600 s,
// bound to one delegation; a token works only while its delegation is active.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { absoluteUrl } from "@/lib/config";
import { newSecret, sha256 } from "@/lib/crypto/secrets";
import { transaction } from "@/lib/db";
import { execute, query, readDate, readOptionalDate, type SqlExecutor } from "@/lib/db/sql";
import { recordAudit } from "@/lib/audit";
import { SCOPES, type Scope } from "@/lib/schemas/service-auth";
import { timeOrderedId } from "@/lib/ids";

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

export interface IssuedAccessToken {
  accessToken: string;
  expiresAt: Date;
  scope: string;
}

/** Mints one access token inside the caller's raw transaction (the transition that grants it commits with it). */
export async function issueAccessToken(
  q: SqlExecutor,
  input: { registrationId: string; delegationId: string; memberId: string; scope: string; grant: "claim" | "jwt-bearer" },
  clock: Clock = systemClock,
): Promise<IssuedAccessToken> {
  const accessToken = newSecret("aca_");
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);
  await q.execute(
    `INSERT INTO "AccessToken" ("id", "tokenHash", "registrationId", "delegationId", "memberId", "scope", "resource", "grant", "expiresAt", "revokedAt", "createdAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10)`,
    [timeOrderedId(), sha256(accessToken), input.registrationId, input.delegationId, input.memberId, input.scope, protectedResource(), input.grant, expiresAt, now],
  );
  // A claim-grant poll is a "token_issue"; a JWT-bearer exchange is an "exchange" (one event each).
  await recordAudit(
    { type: input.grant === "claim" ? "token_issue" : "exchange", memberId: input.memberId, registrationId: input.registrationId, detail: input.scope },
    q,
    clock,
  );
  return { accessToken, expiresAt, scope: input.scope };
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
}

/** How stale a delegation's lastUsedAt may get before a read refreshes it. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Syntax of an aca_ token: prefix plus base64url (never query the database for garbage). */
const ACCESS_TOKEN_SYNTAX = /^aca_[A-Za-z0-9_-]{43,200}$/;

/** One row of the token lookup: the token with the columns of its member, delegation and registration it needs. */
interface TokenLookupRow {
  id: string;
  memberId: string;
  registrationId: string;
  delegationId: string;
  scope: string;
  resource: string;
  expiresAt: unknown;
  revokedAt: unknown;
  memberEmail: string;
  clientName: string | null;
  delegationStatus: string;
  lastUsedAt: unknown;
  registrationType: string;
  registrationStatus: string;
}

/**
 * Every Bearer request looks its token up: one indexed join through lib/db/sql (the equivalent findUnique
 * with three includes cost about 3 ms of CPU per call in Prisma's query compiler, bench/README.md).
 */
async function findToken(tokenHash: string): Promise<TokenLookupRow | null> {
  const rows = await query<TokenLookupRow>(
    `SELECT t."id", t."memberId", t."registrationId", t."delegationId", t."scope", t."resource", t."expiresAt", t."revokedAt",
            m."email" AS "memberEmail", d."clientName", d."status" AS "delegationStatus", d."lastUsedAt",
            r."registrationType", r."status" AS "registrationStatus"
     FROM "AccessToken" t
     JOIN "Member" m ON m."id" = t."memberId"
     JOIN "Delegation" d ON d."id" = t."delegationId"
     JOIN "Registration" r ON r."id" = t."registrationId"
     WHERE t."tokenHash" = $1`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

/**
 * The token's grant, or null when it is unknown, expired, revoked, for another resource, or its
 * delegation is no longer active. Records the use on the delegation (lastUsedAt).
 */
export async function verifyAccessToken(token: string, clock: Clock = systemClock): Promise<VerifiedAccessToken | null> {
  if (!ACCESS_TOKEN_SYNTAX.test(token)) return null;
  const now = clock.now();
  const row = await findToken(sha256(token));
  if (!row) return null;
  const expiresAt = readDate(row.expiresAt);
  if (row.revokedAt !== null || expiresAt.getTime() <= now.getTime()) return null;
  if (row.resource !== protectedResource()) return null;
  if (row.delegationStatus !== "active" || row.registrationStatus !== "active") return null;
  // "Last used" is shown to the member with minute precision: one write a minute per delegation, not one per read.
  const lastUsed = readOptionalDate(row.lastUsedAt);
  if (lastUsed === null || now.getTime() - lastUsed.getTime() >= LAST_USED_RESOLUTION_MS || lastUsed.getTime() > now.getTime()) {
    await execute(`UPDATE "Delegation" SET "lastUsedAt" = $1 WHERE "id" = $2 AND "status" = 'active'`, [now, row.delegationId]);
  }
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
  };
}

/**
 * Revokes one access token (RFC 7009): immediate and idempotent; anything that is not a stored
 * access token (an unknown token, a registration id, a claim token) changes nothing.
 */
export async function revokeAccessToken(token: string, clock: Clock = systemClock): Promise<void> {
  if (!ACCESS_TOKEN_SYNTAX.test(token)) return;
  const now = clock.now();
  await transaction(async (tx) => {
    const row = await tx.accessToken.findUnique({ where: { tokenHash: sha256(token) }, select: { id: true, memberId: true, registrationId: true } });
    if (!row) return;
    const revoked = await tx.accessToken.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt: now } });
    if (revoked.count === 1) await recordAudit({ type: "revocation", memberId: row.memberId, registrationId: row.registrationId, detail: "access token revoked by its holder" }, tx, clock);
  });
}
