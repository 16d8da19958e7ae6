// The operator's webhook commands (scripts/webhook.ts): add, list, remove, rotate a secret.
import { randomBytes } from "node:crypto";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { transaction } from "@/lib/db";
import { checkWebhookUrl, needsAllowPrivateNote } from "./address";
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from "./schemas";
import { encryptSecret, newWebhookSecret } from "./secrets";
import * as deliveries from "./stores/deliveries";
import * as endpoints from "./stores/endpoints";

/** Old and new secret both sign for this long after a rotation (receivers switch without a gap). */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

export class WebhookInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookInputError";
  }
}

/** "a,b" → the event types, each checked; empty or absent → every type. */
export function parseEventFilter(text: string | undefined): string[] {
  if (text === undefined || text.trim() === "") return [];
  const types = [
    ...new Set(
      text
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t.length > 0),
    ),
  ];
  const unknown = types.filter((t) => !isWebhookEventType(t));
  if (unknown.length > 0) throw new WebhookInputError(`unknown event type ${unknown.join(", ")} (known: ${WEBHOOK_EVENT_TYPES.join(", ")})`);
  return types;
}

/**
 * Adds an endpoint; its secret is returned here once and stored only encrypted. `note`: set when the URL was
 * accepted only thanks to WEBHOOK_ALLOW_PRIVATE=1 here, which the delivering server needs too (issue 42).
 */
export async function addEndpoint(
  input: { url: string; events?: string },
  clock: Clock = systemClock,
): Promise<{ id: string; secret: string; url: string; events: string[]; note?: string }> {
  const events = parseEventFilter(input.events);
  const checked = await checkWebhookUrl(input.url);
  const url = checked.toString();
  const note = await needsAllowPrivateNote(checked);
  const secret = newWebhookSecret();
  const id = `ep_${randomBytes(12).toString("base64url")}`;
  const encryptedSecret = await encryptSecret(secret);
  await transaction(() => endpoints.insertEndpoint({ id, url, events, encryptedSecret, now: clock.now() }));
  return { id, secret, url, events, ...(note !== undefined ? { note } : {}) };
}

export interface EndpointListing {
  id: string;
  url: string;
  events: string[];
  createdAt: Date;
  rotationEndsAt: Date | null;
  stats: deliveries.EndpointDeliveryStats;
}

export async function listEndpointsWithStats(clock: Clock = systemClock): Promise<EndpointListing[]> {
  const now = clock.now();
  const rows = await endpoints.listEndpoints();
  return Promise.all(
    rows.map(async (row) => ({
      id: row.id,
      url: row.url,
      events: row.events,
      createdAt: row.createdAt,
      rotationEndsAt: row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > now.getTime() ? row.previousSecretExpiresAt : null,
      stats: await deliveries.endpointStats(row.id),
    })),
  );
}

/** Removes the endpoint and its pending deliveries; false when there is none with that id. */
export function removeEndpoint(id: string): Promise<boolean> {
  return transaction(async () => {
    if ((await endpoints.deleteEndpoint(id)) === 0) return false;
    await deliveries.deleteEndpointDeliveries(id);
    return true;
  });
}

/** A new secret, returned once; the previous one keeps signing for 24 h. Null when there is no such endpoint. */
export async function rotateEndpointSecret(id: string, clock: Clock = systemClock): Promise<{ secret: string; previousValidUntil: Date } | null> {
  const secret = newWebhookSecret();
  const encrypted = await encryptSecret(secret);
  const previousValidUntil = new Date(clock.now().getTime() + ROTATION_OVERLAP_SECONDS * 1000);
  const changed = await transaction(() => endpoints.rotateSecret(id, encrypted, previousValidUntil));
  return changed === 1 ? { secret, previousValidUntil } : null;
}
