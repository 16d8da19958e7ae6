// Store of the Member table: the one module that reads and writes members' rows (members are added by the
// member:add command and the demo seed; the app only reads them). A taken e-mail or slug on insert fails with
// the database's unique-constraint error (lib/db/errors.ts isUniqueViolation).
import { randomUUID } from "node:crypto";
import { db, readBoolean, readDate } from "@/lib/db";

export interface MemberRow {
  id: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string;
  displayName: string;
  displayNameKey: string;
  slug: string;
  publicProfile: boolean;
  joinedAt: Date;
  city: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
  createdAt: Date;
}

type RawMember = Omit<MemberRow, "emailVerified" | "publicProfile" | "joinedAt" | "createdAt"> & {
  emailVerified: unknown;
  publicProfile: unknown;
  joinedAt: unknown;
  createdAt: unknown;
};

const COLUMNS = `"id", "email", "emailVerified", "passwordHash", "displayName", "displayNameKey", "slug", "publicProfile", "joinedAt", "city", "country", "latitude", "longitude", "createdAt"`;

function toRow(raw: RawMember): MemberRow {
  return {
    ...raw,
    emailVerified: readBoolean(raw.emailVerified),
    publicProfile: readBoolean(raw.publicProfile),
    joinedAt: readDate(raw.joinedAt),
    createdAt: readDate(raw.createdAt),
  };
}

export type NewMemberRow = Omit<MemberRow, "id" | "createdAt">;

/** Inserts a member. */
export async function insertMember(member: NewMemberRow, now: Date = new Date()): Promise<MemberRow> {
  const id = randomUUID();
  await db().execute(`INSERT INTO "Member" (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, [
    id,
    member.email,
    member.emailVerified,
    member.passwordHash,
    member.displayName,
    member.displayNameKey,
    member.slug,
    member.publicProfile,
    member.joinedAt,
    member.city,
    member.country,
    member.latitude,
    member.longitude,
    now,
  ]);
  return { ...member, id, createdAt: now };
}

export async function findMemberByEmail(normalizedEmail: string): Promise<MemberRow | null> {
  const rows = await db().query<RawMember>(`SELECT ${COLUMNS} FROM "Member" WHERE "email" = $1`, [normalizedEmail]);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function findMemberById(id: string): Promise<MemberRow | null> {
  const rows = await db().query<RawMember>(`SELECT ${COLUMNS} FROM "Member" WHERE "id" = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function slugTaken(slug: string): Promise<boolean> {
  const rows = await db().query<{ id: string }>(`SELECT "id" FROM "Member" WHERE "slug" = $1`, [slug]);
  return rows.length > 0;
}

export async function countMembers(): Promise<number> {
  const rows = await db().query<{ count: number | string }>(`SELECT CAST(COUNT(*) AS INTEGER) AS "count" FROM "Member"`);
  return Number(rows[0]?.count ?? 0);
}

/** The one public member a lookup names: an exact slug wins, else the earliest member with that display-name key. */
export async function findPublicMember(slug: string, displayNameKey: string): Promise<{ displayName: string; slug: string; joinedAt: Date } | null> {
  const rows = await db().query<{ displayName: string; slug: string; joinedAt: unknown }>(
    `SELECT "displayName", "slug", "joinedAt" FROM "Member"
     WHERE "publicProfile" = $1 AND ("slug" = $2 OR "displayNameKey" = $3)
     ORDER BY CASE WHEN "slug" = $2 THEN 0 ELSE 1 END, "joinedAt" ASC, "slug" ASC
     LIMIT 1`,
    [true, slug, displayNameKey],
  );
  const row = rows[0];
  return row ? { displayName: row.displayName, slug: row.slug, joinedAt: readDate(row.joinedAt) } : null;
}

/** A public profile by exact slug. */
export async function findPublicProfile(slug: string): Promise<{ displayName: string; slug: string; joinedAt: Date; city: string | null; country: string | null } | null> {
  const rows = await db().query<{ displayName: string; slug: string; joinedAt: unknown; city: string | null; country: string | null }>(
    `SELECT "displayName", "slug", "joinedAt", "city", "country" FROM "Member" WHERE "slug" = $1 AND "publicProfile" = $2`,
    [slug, true],
  );
  const row = rows[0];
  return row ? { ...row, joinedAt: readDate(row.joinedAt) } : null;
}

/**
 * Public members with a location, for the map page: one page in slug order after `afterSlug` (keyset: a slug is
 * unique and indexed, so a page never repeats or skips a member however many join meanwhile).
 */
export async function listMappedMembersPage(
  afterSlug: string | undefined,
  limit: number,
): Promise<{ slug: string; displayName: string; city: string | null; country: string | null; latitude: number; longitude: number }[]> {
  return db().query(
    `SELECT "slug", "displayName", "city", "country", "latitude", "longitude" FROM "Member"
     WHERE "publicProfile" = $1 AND "latitude" IS NOT NULL AND "longitude" IS NOT NULL AND "slug" > $2
     ORDER BY "slug" ASC LIMIT $3`,
    [true, afterSlug ?? "", limit],
  );
}
