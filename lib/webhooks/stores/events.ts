// Store of the WebhookEvent table (the outbox): the one module that writes it. An event is inserted in the
// transaction of the change that causes it; the delivery pass later fans it out to the endpoints.
import { db, readDate } from "@/lib/db";
import { timeOrderedId } from "@/lib/ids";

export interface WebhookEventRow {
  id: string;
  type: string;
  payload: string;
  createdAt: Date;
}

export async function insertEvent(input: { type: string; payload: string; now: Date }): Promise<string> {
  const id = timeOrderedId();
  await db().execute(`INSERT INTO "WebhookEvent" ("id", "type", "payload", "createdAt") VALUES ($1, $2, $3, $4)`, [id, input.type, input.payload, input.now]);
  return id;
}

/** Events not yet fanned out to the endpoints, oldest first. */
export async function eventsToFanOut(limit: number): Promise<WebhookEventRow[]> {
  const rows = await db().query<{ id: string; type: string; payload: string; createdAt: unknown }>(
    `SELECT "id", "type", "payload", "createdAt" FROM "WebhookEvent" WHERE "fannedOutAt" IS NULL ORDER BY "id" LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({ ...row, createdAt: readDate(row.createdAt) }));
}

export function markFannedOut(id: string, now: Date): Promise<number> {
  return db().execute(`UPDATE "WebhookEvent" SET "fannedOutAt" = $1 WHERE "id" = $2 AND "fannedOutAt" IS NULL`, [now, id]);
}

export async function findEvent(id: string): Promise<WebhookEventRow | null> {
  const rows = await db().query<{ id: string; type: string; payload: string; createdAt: unknown }>(
    `SELECT "id", "type", "payload", "createdAt" FROM "WebhookEvent" WHERE "id" = $1`,
    [id],
  );
  return rows[0] ? { ...rows[0], createdAt: readDate(rows[0].createdAt) } : null;
}

/** Forgets fanned-out events created before the cutoff that no delivery row refers to any more. */
export function deleteSettledBefore(cutoff: Date): Promise<number> {
  return db().execute(
    `DELETE FROM "WebhookEvent" WHERE "fannedOutAt" IS NOT NULL AND "createdAt" < $1
     AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = "WebhookEvent"."id")`,
    [cutoff],
  );
}
