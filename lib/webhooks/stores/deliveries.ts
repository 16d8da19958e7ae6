// Store of the WebhookDelivery table: the one module that writes it. One row per event and endpoint; its id
// is the webhook-id header, the same on every attempt. A sender claims due rows (claimedUntil) before
// sending and records the outcome after; a sender that dies in between leaves a claim that runs out, and the
// row is sent again (at least once, never lost).
import { db, readDate, readOptionalDate, sqlProvider } from "@/lib/db";

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  attempts: number;
}

/** Inserts a pending delivery unless the (event, endpoint) pair has one already (fan-out is idempotent). */
export function insertDelivery(input: { id: string; eventId: string; endpointId: string; now: Date }): Promise<number> {
  return db().execute(
    `INSERT INTO "WebhookDelivery" ("id", "eventId", "endpointId", "status", "attempts", "nextAttemptAt", "createdAt")
     VALUES ($1, $2, $3, 'pending', 0, $4, $4) ON CONFLICT ("eventId", "endpointId") DO NOTHING`,
    [input.id, input.eventId, input.endpointId, input.now],
  );
}

/**
 * Claims up to `limit` due deliveries until `claimedUntil` and counts the attempt, in one statement. On
 * PostgreSQL the candidate rows are locked with FOR UPDATE SKIP LOCKED, so two instances never claim the same
 * row (a row another instance claimed meanwhile is re-checked on the new version and no longer matches); on
 * SQLite the single writer makes the conditional UPDATE atomic.
 */
export async function claimDue(now: Date, claimedUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
  const due = `SELECT "id" FROM "WebhookDelivery"
       WHERE "status" = 'pending' AND "nextAttemptAt" <= $2 AND ("claimedUntil" IS NULL OR "claimedUntil" <= $2)
       ORDER BY "nextAttemptAt" LIMIT $3`;
  const claim = `UPDATE "WebhookDelivery" SET "claimedUntil" = $1, "attempts" = "attempts" + 1, "lastAttemptAt" = $2
     WHERE "id" IN (${sqlProvider() === "postgres" ? `SELECT "id" FROM "due"` : due}) AND "status" = 'pending' AND ("claimedUntil" IS NULL OR "claimedUntil" <= $2)
     RETURNING "id", "eventId", "endpointId", "attempts"`;
  // PostgreSQL: the locked selection is materialised once. As a plain IN subquery the planner may run it
  // more than once (a semi-join), and the claim then takes more rows than its LIMIT.
  const sql = sqlProvider() === "postgres" ? `WITH "due" AS MATERIALIZED (${due} FOR UPDATE SKIP LOCKED) ${claim}` : claim;
  return db().query<ClaimedDelivery>(sql, [claimedUntil, now, limit]);
}

/** The receiver acknowledged (2xx). Only the claim's holder records it (the claim is still its own). */
export function markDelivered(id: string, attempts: number, now: Date, status: number, excerpt: string): Promise<number> {
  return db().execute(
    `UPDATE "WebhookDelivery" SET "status" = 'delivered', "deliveredAt" = $1, "lastStatus" = $2, "lastExcerpt" = $3, "claimedUntil" = NULL
     WHERE "id" = $4 AND "status" = 'pending' AND "attempts" = $5`,
    [now, status, excerpt, id, attempts],
  );
}

/** The attempt failed: try again at nextAttemptAt, or give up (status failed) when nextAttemptAt is null. */
export function markFailed(id: string, attempts: number, status: number | null, excerpt: string, nextAttemptAt: Date | null): Promise<number> {
  if (nextAttemptAt === null) {
    return db().execute(
      `UPDATE "WebhookDelivery" SET "status" = 'failed', "lastStatus" = $1, "lastExcerpt" = $2, "claimedUntil" = NULL WHERE "id" = $3 AND "status" = 'pending' AND "attempts" = $4`,
      [status, excerpt, id, attempts],
    );
  }
  return db().execute(
    `UPDATE "WebhookDelivery" SET "lastStatus" = $1, "lastExcerpt" = $2, "nextAttemptAt" = $3, "claimedUntil" = NULL WHERE "id" = $4 AND "status" = 'pending' AND "attempts" = $5`,
    [status, excerpt, nextAttemptAt, id, attempts],
  );
}

export function deleteEndpointDeliveries(endpointId: string): Promise<number> {
  return db().execute(`DELETE FROM "WebhookDelivery" WHERE "endpointId" = $1`, [endpointId]);
}

export interface EndpointDeliveryStats {
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastFailure: string | null;
  backlog: number;
  gaveUp: number;
}

/** What webhook:list shows per endpoint. A failure is an attempt that did not end in delivery. */
export async function endpointStats(endpointId: string): Promise<EndpointDeliveryStats> {
  const [counts] = await db().query<{ backlog: number; gaveUp: number; lastSuccessAt: unknown }>(
    `SELECT CAST(SUM(CASE WHEN "status" = 'pending' THEN 1 ELSE 0 END) AS INTEGER) AS "backlog",
            CAST(SUM(CASE WHEN "status" = 'failed' THEN 1 ELSE 0 END) AS INTEGER) AS "gaveUp",
            MAX("deliveredAt") AS "lastSuccessAt"
     FROM "WebhookDelivery" WHERE "endpointId" = $1`,
    [endpointId],
  );
  const failures = await db().query<{ lastAttemptAt: unknown; lastStatus: number | null; lastExcerpt: string | null }>(
    `SELECT "lastAttemptAt", "lastStatus", "lastExcerpt" FROM "WebhookDelivery"
     WHERE "endpointId" = $1 AND "status" <> 'delivered' AND "lastAttemptAt" IS NOT NULL AND "claimedUntil" IS NULL
     ORDER BY "lastAttemptAt" DESC LIMIT 1`,
    [endpointId],
  );
  const failure = failures[0];
  return {
    lastSuccessAt: readOptionalDate(counts?.lastSuccessAt),
    lastFailureAt: failure ? readDate(failure.lastAttemptAt) : null,
    lastFailure: failure ? `${failure.lastStatus === null ? "no answer" : `HTTP ${failure.lastStatus}`}${failure.lastExcerpt ? `: ${failure.lastExcerpt}` : ""}` : null,
    backlog: Number(counts?.backlog ?? 0),
    gaveUp: Number(counts?.gaveUp ?? 0),
  };
}

/** Forgets finished deliveries (delivered or given up) created before the cutoff; pending ones stay. */
export function deleteFinishedBefore(cutoff: Date): Promise<number> {
  return db().execute(`DELETE FROM "WebhookDelivery" WHERE "status" <> 'pending' AND "createdAt" < $1`, [cutoff]);
}
