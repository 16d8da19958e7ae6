// Store of the BlockedAgentOrigin table: the one module that writes it. A verified agent origin that the operator
// (npm run agents:block) or repeated reports blocked (issue 53). Unblocking keeps the row with its time, so reports
// made before it no longer count toward an automatic block. A reported origin that was never blocked has a row too
// (status "reported"): the row a report locks, so two reports of one origin are counted one after the other.
import { db, readDate } from "@/lib/db";

export interface OriginBlock {
  origin: string;
  status: "blocked" | "unblocked" | "reported";
  source: "operator" | "reports";
  changedAt: Date;
}

type RawBlock = { origin: string; status: string; source: string; changedAt: unknown };

function toBlock(raw: RawBlock): OriginBlock {
  const status = raw.status === "blocked" || raw.status === "reported" ? raw.status : "unblocked";
  return { origin: raw.origin, status, source: raw.source === "reports" ? "reports" : "operator", changedAt: readDate(raw.changedAt) };
}

export async function blockOf(origin: string): Promise<OriginBlock | null> {
  const rows = await db().query<RawBlock>(`SELECT "origin", "status", "source", "changedAt" FROM "BlockedAgentOrigin" WHERE "origin" = $1`, [origin]);
  return rows[0] ? toBlock(rows[0]) : null;
}

/**
 * The origin's row, locked until the caller's transaction ends (made "reported" when there is none): on PostgreSQL a
 * second report of the same origin waits here, then counts with the first one committed (SQLite runs one at a time).
 */
export async function lockOrigin(origin: string, now: Date): Promise<OriginBlock> {
  const rows = await db().query<RawBlock>(
    `INSERT INTO "BlockedAgentOrigin" ("origin", "status", "source", "changedAt") VALUES ($1, 'reported', 'reports', $2)
     ON CONFLICT ("origin") DO UPDATE SET "status" = "BlockedAgentOrigin"."status"
     RETURNING "origin", "status", "source", "changedAt"`,
    [origin, now],
  );
  return toBlock(rows[0]!);
}

/** Blocks the origin; 1 when it was not blocked before (the caller then cancels its delegations), 0 when it was. */
export function markBlocked(origin: string, source: OriginBlock["source"], now: Date): Promise<number> {
  return db().execute(
    `INSERT INTO "BlockedAgentOrigin" ("origin", "status", "source", "changedAt") VALUES ($1, 'blocked', $2, $3)
     ON CONFLICT ("origin") DO UPDATE SET "status" = 'blocked', "source" = excluded."source", "changedAt" = excluded."changedAt" WHERE "BlockedAgentOrigin"."status" <> 'blocked'`,
    [origin, source, now],
  );
}

/** Unblocks the origin; 0 when it was not blocked. */
export function markUnblocked(origin: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "BlockedAgentOrigin" SET "status" = 'unblocked', "source" = 'operator', "changedAt" = $1 WHERE "origin" = $2 AND "status" = 'blocked'`, [
    now,
    origin,
  ]);
}

/** Origins blocked now or unblocked by the operator, latest change first. */
export async function listBlocks(): Promise<OriginBlock[]> {
  const rows = await db().query<RawBlock>(
    `SELECT "origin", "status", "source", "changedAt" FROM "BlockedAgentOrigin" WHERE "status" IN ('blocked', 'unblocked') ORDER BY "changedAt" DESC, "origin" ASC`,
    [],
  );
  return rows.map(toBlock);
}
