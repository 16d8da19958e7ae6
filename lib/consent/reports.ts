// Store of the AgentReport table: the one module that writes it. "I didn't start this" (RFC 10027 §6.1.6): who
// reported which registration, with the registration's verified origin and the attempt's network hash, so an
// operator can see campaigns (npm run agents:reports) and repeated reports can block an origin. Kept 90 days.
import { db, readDate } from "@/lib/db";
import { firstTimeOrderedIdAt, timeOrderedId } from "@/lib/ids";

export interface NewReport {
  memberId: string;
  registrationId: string;
  clientName: string | null;
  agentOrigin: string | null;
  networkHash: string | null;
}

export async function insertReport(report: NewReport, now: Date): Promise<string> {
  const id = timeOrderedId(now);
  await db().execute(
    `INSERT INTO "AgentReport" ("id", "createdAt", "memberId", "registrationId", "clientName", "agentOrigin", "networkHash") VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, now, report.memberId, report.registrationId, report.clientName, report.agentOrigin, report.networkHash],
  );
  return id;
}

/** How many distinct members reported this origin since `since`. */
export async function distinctReportersOf(origin: string, since: Date): Promise<number> {
  const rows = await db().query<{ reporters: unknown }>(`SELECT COUNT(DISTINCT "memberId") AS "reporters" FROM "AgentReport" WHERE "agentOrigin" = $1 AND "createdAt" >= $2`, [
    origin,
    since,
  ]);
  return Number(rows[0]?.reporters ?? 0);
}

export interface ReportGroup {
  /** The verified origin or the network hash; null: unsigned, or the network was unknown. */
  key: string | null;
  reports: number;
  members: number;
  lastAt: Date;
}

/** Reports since `since`, grouped by one column, most reported first. */
async function groupBy(column: "agentOrigin" | "networkHash", since: Date): Promise<ReportGroup[]> {
  const rows = await db().query<{ key: string | null; reports: unknown; members: unknown; lastAt: unknown }>(
    `SELECT "${column}" AS "key", COUNT(*) AS "reports", COUNT(DISTINCT "memberId") AS "members", MAX("createdAt") AS "lastAt"
     FROM "AgentReport" WHERE "createdAt" >= $1 GROUP BY "${column}" ORDER BY COUNT(*) DESC, MAX("createdAt") DESC`,
    [since],
  );
  return rows.map((row) => ({ key: row.key, reports: Number(row.reports), members: Number(row.members), lastAt: readDate(row.lastAt) }));
}

export function reportsByOrigin(since: Date): Promise<ReportGroup[]> {
  return groupBy("agentOrigin", since);
}

export function reportsByNetwork(since: Date): Promise<ReportGroup[]> {
  return groupBy("networkHash", since);
}

/** The janitor: removes up to `limit` reports made before `cutoff` (by the id's time, as the audit log); the number removed. */
export function deleteReportsBefore(cutoff: Date, limit: number): Promise<number> {
  return db().execute(`DELETE FROM "AgentReport" WHERE "id" IN (SELECT "id" FROM "AgentReport" WHERE "id" < $1 LIMIT $2)`, [firstTimeOrderedIdAt(cutoff), limit]);
}
