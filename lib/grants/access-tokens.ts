// Store of the AccessToken table: the one module that writes it. Tokens are kept only as SHA-256; rows take
// time-ordered ids (lib/ids): a new row lands on the primary key's last page.
import { db, readDate, readOptionalDate } from "@/lib/db";
import { firstTimeOrderedIdAt, timeOrderedId } from "@/lib/ids";

export async function insertAccessToken(input: {
  tokenHash: string;
  registrationId: string;
  delegationId: string;
  memberId: string;
  scope: string;
  resource: string;
  grant: "claim" | "jwt-bearer";
  expiresAt: Date;
  now: Date;
  /** Issue 52: the DPoP key's thumbprint every use must prove, and the Web Bot Auth origin every use must be signed by. */
  dpopJkt?: string | null;
  agentOrigin?: string | null;
}): Promise<string> {
  const id = timeOrderedId(input.now);
  await db().execute(
    `INSERT INTO "AccessToken" ("id", "tokenHash", "registrationId", "delegationId", "memberId", "scope", "resource", "grant", "dpopJkt", "agentOrigin", "expiresAt", "revokedAt", "createdAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, $12)`,
    [
      id,
      input.tokenHash,
      input.registrationId,
      input.delegationId,
      input.memberId,
      input.scope,
      input.resource,
      input.grant,
      input.dpopJkt ?? null,
      input.agentOrigin ?? null,
      input.expiresAt,
      input.now,
    ],
  );
  return id;
}

/** One row of the token check: the token with the columns of its member, delegation and registration it needs. */
export interface TokenGrantRow {
  id: string;
  memberId: string;
  registrationId: string;
  delegationId: string;
  scope: string;
  resource: string;
  expiresAt: Date;
  revokedAt: Date | null;
  memberEmail: string;
  clientName: string | null;
  delegationStatus: string;
  lastUsedAt: Date | null;
  registrationType: string;
  registrationStatus: string;
  /** Issue 52: the bindings the token was issued with (null: none). */
  dpopJkt: string | null;
  agentOrigin: string | null;
}

/** Every Bearer request looks its token up: one indexed join. */
export async function findTokenGrant(tokenHash: string): Promise<TokenGrantRow | null> {
  const rows = await db().query<Omit<TokenGrantRow, "expiresAt" | "revokedAt" | "lastUsedAt"> & { expiresAt: unknown; revokedAt: unknown; lastUsedAt: unknown }>(
    `SELECT t."id", t."memberId", t."registrationId", t."delegationId", t."scope", t."resource", t."expiresAt", t."revokedAt", t."dpopJkt", t."agentOrigin",
            m."email" AS "memberEmail", d."clientName", d."status" AS "delegationStatus", d."lastUsedAt",
            r."registrationType", r."status" AS "registrationStatus"
     FROM "AccessToken" t
     JOIN "Member" m ON m."id" = t."memberId"
     JOIN "Delegation" d ON d."id" = t."delegationId"
     JOIN "Registration" r ON r."id" = t."registrationId"
     WHERE t."tokenHash" = $1`,
    [tokenHash],
  );
  const raw = rows[0];
  if (!raw) return null;
  return { ...raw, expiresAt: readDate(raw.expiresAt), revokedAt: readOptionalDate(raw.revokedAt), lastUsedAt: readOptionalDate(raw.lastUsedAt) };
}

export async function findTokenOwner(tokenHash: string): Promise<{ id: string; memberId: string; registrationId: string } | null> {
  const rows = await db().query<{ id: string; memberId: string; registrationId: string }>(`SELECT "id", "memberId", "registrationId" FROM "AccessToken" WHERE "tokenHash" = $1`, [
    tokenHash,
  ]);
  return rows[0] ?? null;
}

/** Revokes one token; 0 when it was revoked already. */
export function revokeToken(id: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "AccessToken" SET "revokedAt" = $1 WHERE "id" = $2 AND "revokedAt" IS NULL`, [now, id]);
}

/** Revokes every live token of a delegation (the member cancelled it); the number revoked. */
export function revokeDelegationTokens(delegationId: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "AccessToken" SET "revokedAt" = $1 WHERE "delegationId" = $2 AND "revokedAt" IS NULL`, [now, delegationId]);
}

/**
 * The janitor (lib/operator/janitor.ts): removes up to `limit` tokens that expired or were revoked before
 * `cutoff`; the number removed. Such a token was issued before the cutoff, and a token's id is made from its issue
 * time (lib/ids): the primary key's range bounds the search, with no index of its own (each would cost every issued
 * token one more page write).
 */
export function deleteDeadTokensBefore(cutoff: Date, limit: number): Promise<number> {
  return db().execute(
    `DELETE FROM "AccessToken" WHERE "id" IN (
       SELECT "id" FROM "AccessToken" WHERE "id" < $2 AND ("expiresAt" < $1 OR "revokedAt" < $1) LIMIT $3)`,
    [cutoff, firstTimeOrderedIdAt(cutoff), limit],
  );
}
