// Store of the WebhookEndpoint table: the one module that writes it. Secrets are stored encrypted
// (../secrets.ts); this module never sees them in clear.
import { db, readDate, readOptionalDate } from "@/lib/db";

export interface WebhookEndpointRow {
  id: string;
  url: string;
  /** Subscribed event types; empty = every type. */
  events: string[];
  encryptedSecret: string;
  encryptedPreviousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
}

interface RawEndpoint {
  id: string;
  url: string;
  events: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: unknown;
  createdAt: unknown;
}

const COLUMNS = `"id", "url", "events", "secret", "previousSecret", "previousSecretExpiresAt", "createdAt"`;

function toRow(raw: RawEndpoint): WebhookEndpointRow {
  return {
    id: raw.id,
    url: raw.url,
    events: raw.events.split(" ").filter((e) => e.length > 0),
    encryptedSecret: raw.secret,
    encryptedPreviousSecret: raw.previousSecret,
    previousSecretExpiresAt: readOptionalDate(raw.previousSecretExpiresAt),
    createdAt: readDate(raw.createdAt),
  };
}

export async function insertEndpoint(input: { id: string; url: string; events: readonly string[]; encryptedSecret: string; now: Date }): Promise<void> {
  await db().execute(`INSERT INTO "WebhookEndpoint" ("id", "url", "events", "secret", "createdAt") VALUES ($1, $2, $3, $4, $5)`, [
    input.id,
    input.url,
    input.events.join(" "),
    input.encryptedSecret,
    input.now,
  ]);
}

export async function listEndpoints(): Promise<WebhookEndpointRow[]> {
  const rows = await db().query<RawEndpoint>(`SELECT ${COLUMNS} FROM "WebhookEndpoint" ORDER BY "createdAt", "id"`);
  return rows.map(toRow);
}

export async function findEndpoint(id: string): Promise<WebhookEndpointRow | null> {
  const rows = await db().query<RawEndpoint>(`SELECT ${COLUMNS} FROM "WebhookEndpoint" WHERE "id" = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

/** Removes the endpoint; its deliveries go with it (../stores/deliveries.ts deleteEndpointDeliveries, same transaction). */
export function deleteEndpoint(id: string): Promise<number> {
  return db().execute(`DELETE FROM "WebhookEndpoint" WHERE "id" = $1`, [id]);
}

/** The new secret signs from now on; the current one keeps signing until previousExpiresAt. */
export function rotateSecret(id: string, encryptedSecret: string, previousExpiresAt: Date): Promise<number> {
  return db().execute(`UPDATE "WebhookEndpoint" SET "previousSecret" = "secret", "secret" = $1, "previousSecretExpiresAt" = $2 WHERE "id" = $3`, [
    encryptedSecret,
    previousExpiresAt,
    id,
  ]);
}
