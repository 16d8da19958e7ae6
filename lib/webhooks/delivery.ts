// The delivery pass: expire lapsed claims (emitting delegation.expired), fan new events out to the endpoints,
// then claim due deliveries, send them outside any transaction, and record each outcome. Run by the
// in-process loop under the Node server (startWebhookDelivery), by the cron route and after() on Vercel, and
// by `npm run webhook:deliver`. Several instances may run passes at once: claims keep them apart.
// Background work yields to requests: fan-out runs in small transactions and, like the send batches, pauses
// after each full one in proportion to its time (lib/background/pacing); while requests are being served both
// shrink to a quarter and pause down to the pacer's floor (3 % of wall time: a backlog drains slower under a
// sustained load, never stops). An endpoint's secrets are decrypted once per pass (kept in memory for that
// pass only, never logged).
import { createHash } from "node:crypto";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { isDatabaseUnavailable, transaction } from "@/lib/db";
import { errorLog, logger } from "@/lib/observability/log";
import { BackgroundPacer, type PacingOptions } from "@/lib/background/pacing";
import { expireLapsedPending } from "@/lib/grants/registrations";
import { webhookDelegationExpired } from "./emit";
import { nextAttemptAt } from "./schedule";
import { decryptSecret } from "./secrets";
import { sendWebhook, timeoutMs, type SendOutcome } from "./send";
import * as deliveries from "./stores/deliveries";
import * as endpoints from "./stores/endpoints";
import * as events from "./stores/events";

const SWEEP_BATCH = 100;
/** Events per fan-out transaction: ~2 statements per event and endpoint, so one transaction stays short. */
export const FAN_OUT_BATCH = 20;
/** Events per fan-out transaction while requests are being served (it runs on the loop on SQLite). */
export const BUSY_FAN_OUT_BATCH = 5;
/** Send batches wait mostly on the network, not the loop: they may take half the wall time. */
const SEND_DUTY_CYCLE = 0.5;
/** Finished deliveries and their events are kept this long (well past the three days of retries), then forgotten. */
export const RETENTION_SECONDS = 14 * 24 * 3600;
const PRUNE_EVERY_MS = 3600 * 1000;
let lastPrunedAt = 0;

/** Deletes finished deliveries and settled events older than the retention (at most once an hour per process). */
export async function pruneOld(clock: Clock = systemClock, force = false): Promise<number> {
  const now = clock.now().getTime();
  if (!force && Math.abs(now - lastPrunedAt) < PRUNE_EVERY_MS) return 0;
  lastPrunedAt = now;
  const cutoff = new Date(now - RETENTION_SECONDS * 1000);
  return transaction(async () => (await deliveries.deleteFinishedBefore(cutoff)) + (await events.deleteSettledBefore(cutoff)));
}

/** Deliveries claimed and sent at once; all of a batch are in flight together, so a claim outlives its sends. */
const SEND_BATCH = 16;
/** Deliveries per batch while requests are being served (signing and parsing answers run on the loop). */
const BUSY_SEND_BATCH = 4;

/** The stable webhook-id of an event at an endpoint. */
export function webhookIdFor(eventId: string, endpointId: string): string {
  return `msg_${createHash("sha256").update(`${eventId}\n${endpointId}`).digest("base64url").slice(0, 32)}`;
}

/** How long a claim lasts: well past the send's deadline, so only a dead sender's claim ever runs out. */
export function claimMs(): number {
  return 2 * timeoutMs() + 5000;
}

export interface PassOptions {
  clock?: Clock;
  /** Stop claiming new batches after this long (ms); a pass always finishes the batch it claimed. */
  budgetMs?: number;
  /** For tests: the jitter source. */
  random?: () => number;
  /** For tests: replaces the HTTP attempt. */
  send?: typeof sendWebhook;
  /** The pause after each full fan-out transaction and send batch (injectable clock and sleep for tests). */
  pacing?: PacingOptions;
}

export interface PassSummary {
  expired: number;
  fannedOut: number;
  delivered: number;
  retrying: number;
  gaveUp: number;
}

/** Pending registrations whose outer claim ran out become expired, each with its event, in one transaction per batch. */
export async function sweepLapsedClaims(clock: Clock = systemClock): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await transaction(async () => {
      const ids = await expireLapsedPending(clock.now(), SWEEP_BATCH);
      for (const id of ids) await webhookDelegationExpired(id, clock);
      return ids.length;
    });
    total += count;
    if (count < SWEEP_BATCH) return total;
  }
}

/** Fans out at most `limit` events in one short transaction; returns how many. */
async function fanOutOnce(clock: Clock, limit: number): Promise<number> {
  return transaction(async () => {
    const batch = await events.eventsToFanOut(limit);
    if (batch.length === 0) return 0;
    const subscribed = await endpoints.listEndpoints();
    const now = clock.now();
    for (const event of batch) {
      for (const endpoint of subscribed) {
        if (endpoint.createdAt.getTime() > event.createdAt.getTime()) continue;
        if (endpoint.events.length > 0 && !endpoint.events.includes(event.type)) continue;
        await deliveries.insertDelivery({ id: webhookIdFor(event.id, endpoint.id), eventId: event.id, endpointId: endpoint.id, now });
      }
      await events.markFannedOut(event.id, now);
    }
    return batch.length;
  });
}

/** One delivery row per new event and subscribed endpoint (endpoints added after the event get none). */
export async function fanOutEvents(clock: Clock = systemClock, pacing?: PacingOptions): Promise<number> {
  const pacer = new BackgroundPacer(pacing);
  let total = 0;
  for (;;) {
    const limit = pacer.busy() ? BUSY_FAN_OUT_BATCH : FAN_OUT_BATCH;
    const { result: count, workMs } = await pacer.measure(() => fanOutOnce(clock, limit));
    total += count;
    if (count < limit) return total;
    await pacer.rest(workMs);
  }
}

/** Decrypted secrets for one pass, keyed by the endpoint's ciphertexts (a rotation mid-pass gives a new key). */
export type SecretCache = Map<string, Promise<string[]>>;

async function decryptSecrets(endpoint: endpoints.WebhookEndpointRow, withPrevious: boolean): Promise<string[]> {
  const secrets = [await decryptSecret(endpoint.encryptedSecret)];
  if (withPrevious && endpoint.encryptedPreviousSecret) secrets.push(await decryptSecret(endpoint.encryptedPreviousSecret));
  return secrets;
}

export function secretsOf(endpoint: endpoints.WebhookEndpointRow, now: Date, cache: SecretCache = new Map()): Promise<string[]> {
  const withPrevious = Boolean(endpoint.encryptedPreviousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > now.getTime());
  const key = `${endpoint.id}\n${endpoint.encryptedSecret}\n${withPrevious ? endpoint.encryptedPreviousSecret : ""}`;
  let secrets = cache.get(key);
  if (!secrets) {
    secrets = decryptSecrets(endpoint, withPrevious);
    cache.set(key, secrets);
  }
  return secrets;
}

type Outcome = "delivered" | "retrying" | "gaveUp" | "skipped";

async function deliverOne(claimed: deliveries.ClaimedDelivery, options: PassOptions, clock: Clock, secretCache: SecretCache): Promise<Outcome> {
  const [event, endpoint] = await Promise.all([events.findEvent(claimed.eventId), endpoints.findEndpoint(claimed.endpointId)]);
  // Removed meanwhile: webhook:remove deletes the endpoint's deliveries with it.
  if (!endpoint) return "skipped";
  let result: SendOutcome;
  if (!event) {
    result = { status: null, ok: false, excerpt: "event no longer stored" };
  } else {
    try {
      // The header's timestamp is wall time: receivers compare it with theirs (Standard Webhooks allows 5 min).
      const secrets = await secretsOf(endpoint, clock.now(), secretCache);
      result = await (options.send ?? sendWebhook)({ url: endpoint.url, webhookId: claimed.id, payload: event.payload, secrets, timestamp: new Date() });
    } catch (error) {
      result = { status: null, ok: false, excerpt: error instanceof Error && error.name === "UnreadableSecretError" ? error.message : "not sent" };
    }
  }
  const now = clock.now();
  if (result.ok) {
    await deliveries.markDelivered(claimed.id, claimed.attempts, now, result.status ?? 0, result.excerpt);
    return "delivered";
  }
  const next = event ? nextAttemptAt(claimed.attempts, now, event.createdAt, options.random) : null;
  await deliveries.markFailed(claimed.id, claimed.attempts, result.status, result.excerpt, next);
  return next ? "retrying" : "gaveUp";
}

/** One pass; see the module comment. */
export async function runDeliveryPass(options: PassOptions = {}): Promise<PassSummary> {
  const clock = options.clock ?? systemClock;
  const started = Date.now();
  const summary: PassSummary = { expired: await sweepLapsedClaims(clock), fannedOut: 0, delivered: 0, retrying: 0, gaveUp: 0 };
  const fanOutPacer = new BackgroundPacer(options.pacing);
  const sendPacer = new BackgroundPacer({ dutyCycle: SEND_DUTY_CYCLE, ...options.pacing });
  const secretCache: SecretCache = new Map();
  let fanningOut = true;
  // A backlog of events is fanned out one transaction at a time between send batches: the first deliveries
  // go out at once, not after the whole backlog has been fanned out.
  for (;;) {
    if (fanningOut) {
      const limit = fanOutPacer.busy() ? BUSY_FAN_OUT_BATCH : FAN_OUT_BATCH;
      const { result: count, workMs } = await fanOutPacer.measure(() => fanOutOnce(clock, limit));
      summary.fannedOut += count;
      fanningOut = count === limit;
      if (fanningOut) await fanOutPacer.rest(workMs);
    }
    const sendLimit = sendPacer.busy() ? BUSY_SEND_BATCH : SEND_BATCH;
    const { result: claimed, workMs } = await sendPacer.measure(async () => {
      const now = clock.now();
      const batch = await deliveries.claimDue(now, new Date(now.getTime() + claimMs()), sendLimit);
      const outcomes = await Promise.all(batch.map((row) => deliverOne(row, options, clock, secretCache)));
      for (const outcome of outcomes) if (outcome !== "skipped") summary[outcome]++;
      return batch.length;
    });
    if ((claimed < sendLimit && !fanningOut) || (options.budgetMs !== undefined && Date.now() - started >= options.budgetMs)) break;
    // A backlog: the next batch waits in proportion to this one.
    if (claimed === sendLimit) await sendPacer.rest(workMs);
  }
  await pruneOld(clock);
  return summary;
}

// ---------------------------------------------------------------- the in-process loop

export interface DeliveryLoop {
  stop(): Promise<void>;
}

function pollMs(): number {
  return getConfig().webhooks.pollMs;
}

let loop: DeliveryLoop | null = null;

/**
 * Runs a pass every second (the tests' --test-webhook-poll-ms shortens it) in this process until stopped; one loop per process. Under the
 * Node server, started by lib/startup. A failed pass is logged in one line (at most once a minute) and the
 * loop goes on: an unreachable database delays delivery, it loses nothing.
 */
export function startWebhookDelivery(options: PassOptions = {}): DeliveryLoop {
  if (loop) return loop;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();
  let lastLogged = 0;
  const tick = () => {
    current = runDeliveryPass(options)
      .catch((error: unknown) => {
        if (Date.now() - lastLogged < 60_000) return;
        lastLogged = Date.now();
        if (!isDatabaseUnavailable(error)) return errorLog(error, "webhook delivery pass");
        logger().warn({ type: "webhook_delivery_failed", reason: "database_unavailable" }, "webhook delivery pass failed: the database is unavailable; retrying");
      })
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, pollMs());
          timer.unref();
        }
      });
  };
  timer = setTimeout(tick, pollMs());
  timer.unref();
  const handle: DeliveryLoop = {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
      if (loop === handle) loop = null;
    },
  };
  loop = handle;
  return handle;
}

/** Stops the loop started by startWebhookDelivery, if any (waits for its pass to finish). */
export async function stopWebhookDelivery(): Promise<void> {
  await loop?.stop();
}
