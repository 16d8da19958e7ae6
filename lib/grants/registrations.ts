// Store of the Registration table: the one module that writes it. A registration holds the outer claim
// (clm_, kept as SHA-256) and its status: pending | active | denied | expired | cancelled.
import { randomUUID } from "node:crypto";
import { db, readDate } from "@/lib/db";

export interface RegistrationRow {
  id: string;
  loginHint: string;
  clientName: string | null;
  scope: string;
  claimExpiresAt: Date;
  status: string;
  /** The Web Bot Auth origin that signed the registration (issue 44); null when it was unsigned. */
  agentOrigin: string | null;
  /** The DPoP key the registration proved (issue 52): every poll must prove it; null when it carried no proof. */
  dpopJkt: string | null;
}

interface RawRegistration {
  id: string;
  loginHint: string;
  clientName: string | null;
  scope: string;
  claimExpiresAt: unknown;
  status: string;
  agentOrigin: string | null;
  dpopJkt: string | null;
}

const COLUMNS = `"id", "loginHint", "clientName", "scope", "claimExpiresAt", "status", "agentOrigin", "dpopJkt"`;

function toRow(raw: RawRegistration): RegistrationRow {
  return { ...raw, claimExpiresAt: readDate(raw.claimExpiresAt) };
}

export async function insertRegistration(input: {
  loginHint: string;
  clientName: string | null;
  scope: string;
  claimTokenHash: string;
  claimExpiresAt: Date;
  now: Date;
  /** The verified signer (issue 44), or null for an unsigned registration. */
  agent?: { origin: string; thumbprint: string } | null;
  /** The DPoP key's thumbprint (issue 52), or null for a registration without a proof. */
  dpopJkt?: string | null;
}): Promise<string> {
  const id = randomUUID();
  await db().execute(
    `INSERT INTO "Registration" ("id", "registrationType", "loginHint", "clientName", "scope", "claimTokenHash", "claimExpiresAt", "status", "agentOrigin", "agentKeyThumbprint", "dpopJkt", "createdAt", "updatedAt")
     VALUES ($1, 'service_auth', $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10, $10)`,
    [
      id,
      input.loginHint,
      input.clientName,
      input.scope,
      input.claimTokenHash,
      input.claimExpiresAt,
      input.agent?.origin ?? null,
      input.agent?.thumbprint ?? null,
      input.dpopJkt ?? null,
      input.now,
    ],
  );
  return id;
}

export async function findRegistrationByClaimTokenHash(claimTokenHash: string): Promise<RegistrationRow | null> {
  const rows = await db().query<RawRegistration>(`SELECT ${COLUMNS} FROM "Registration" WHERE "claimTokenHash" = $1`, [claimTokenHash]);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function findRegistration(id: string): Promise<RegistrationRow | null> {
  const rows = await db().query<RawRegistration>(`SELECT ${COLUMNS} FROM "Registration" WHERE "id" = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Moves the registration from `from` to `to`; the number of rows changed (0 when another request moved it first). */
export function moveRegistration(id: string, from: string, to: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "Registration" SET "status" = $1, "updatedAt" = $2 WHERE "id" = $3 AND "status" = $4`, [to, now, id, from]);
}

/** An outer claim that ran out without approval: the registration is expired (set lazily on the next touch). */
export function markExpiredIfPending(id: string, now: Date): Promise<number> {
  return moveRegistration(id, "pending", "expired", now);
}

/** The member cancelled the delegation: whatever the registration's status, it reads "cancelled". */
export function markCancelled(id: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "Registration" SET "status" = 'cancelled', "updatedAt" = $1 WHERE "id" = $2`, [now, id]);
}

/** Client names of these registrations (for the member's audit log). */
export async function clientNamesOf(ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const placeholders = ids.map((_, i) => `$${i + 1}`).join(", ");
  const rows = await db().query<{ id: string; clientName: string | null }>(`SELECT "id", "clientName" FROM "Registration" WHERE "id" IN (${placeholders})`, ids);
  return new Map(rows.map((row) => [row.id, row.clientName]));
}

/** The verified Web Bot Auth origins of these registrations (issue 44); unsigned ones are left out. */
export async function agentOriginsOf(ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const placeholders = ids.map((_, i) => `$${i + 1}`).join(", ");
  const rows = await db().query<{ id: string; agentOrigin: string | null }>(`SELECT "id", "agentOrigin" FROM "Registration" WHERE "id" IN (${placeholders})`, ids);
  return new Map(rows.flatMap((row) => (row.agentOrigin === null ? [] : [[row.id, row.agentOrigin] as const])));
}

/** Marks up to `limit` pending registrations whose outer claim ran out as expired (the webhook sweep); their ids. */
export async function expireLapsedPending(now: Date, limit: number): Promise<string[]> {
  const rows = await db().query<{ id: string }>(
    `UPDATE "Registration" SET "status" = 'expired', "updatedAt" = $1
     WHERE "id" IN (SELECT "id" FROM "Registration" WHERE "status" = 'pending' AND "claimExpiresAt" <= $1 ORDER BY "claimExpiresAt" LIMIT $2) AND "status" = 'pending'
     RETURNING "id"`,
    [now, limit],
  );
  return rows.map((row) => row.id);
}

/**
 * The janitor: removes up to `limit` registrations that were never approved (no delegation) and whose outer
 * claim ended before `cutoff`, with their attempts (ON DELETE CASCADE); the number removed. An approved
 * registration keeps its delegation and is never removed here.
 */
export function deleteUnapprovedBefore(cutoff: Date, limit: number): Promise<number> {
  return db().execute(
    `DELETE FROM "Registration" WHERE "id" IN (
       SELECT r."id" FROM "Registration" r
       WHERE r."claimExpiresAt" < $1 AND NOT EXISTS (SELECT 1 FROM "Delegation" d WHERE d."registrationId" = r."id")
       LIMIT $2)`,
    [cutoff, limit],
  );
}
