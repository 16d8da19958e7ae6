// Webhooks on a throwaway database: every event type from the real lifecycle functions (with a hand-moved
// clock), the outbox written with the change, delivery to a real receiver that verifies each signature with
// the svix package, the retry schedule, claims, the address check at delivery time and secret rotation.
import { spawnSync } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { decideAttempt, pollClaim, refreshClaim, registerClaim, type NewRegistration } from "@/lib/service-auth/lifecycle";
import { cancelDelegation } from "@/lib/delegations";
import { revokeAccessToken } from "@/lib/tokens";
import { SCOPES } from "@/lib/schemas/service-auth";
import { addEndpoint, removeEndpoint, rotateEndpointSecret, runDeliveryPass, webhookIdFor, listEndpointsWithStats, WebhookAddressError } from "@/lib/webhooks";
import { claimDue } from "@/lib/webhooks/stores/deliveries";
import { baseRetryDelaySeconds, GIVE_UP_AFTER_SECONDS, nextAttemptAt } from "@/lib/webhooks/schedule";
import { claimMs, pruneOld, RETENTION_SECONDS } from "@/lib/webhooks/delivery";
import { cronAuthorized } from "@/lib/webhooks/cron";
import { decryptSecret, newWebhookSecret } from "@/lib/webhooks/secrets";
import { sendWebhook } from "@/lib/webhooks/send";
import { isForbiddenAddress } from "@/lib/outbound";
import { assertValidPayload, startReceiver, type Receiver } from "@/tests/support/webhook-receiver";
import { configureFile, useTestConfig } from "../../support/config";
import { getConfig } from "@/lib/config";
import { childEnv } from "../../support/databases";

const ROOT = path.resolve(__dirname, "../../..");
// tsx's CLI straight from node_modules, as tests/unit/db/member-add-cli.test.ts runs the scripts.
const TSX = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
const ADA = "ada@example.com";
const GRACE = "grace@example.com";
const noJitter = () => 0.5;

async function member(email: string) {
  const row = await getDb().member.findUniqueOrThrow({ where: { email } });
  return { id: row.id, email: row.email };
}

const register = (clock: ManualClock, loginHint = ADA): Promise<NewRegistration> => registerClaim({ loginHint, clientName: "Webhook Test Agent", scopes: [...SCOPES] }, clock);

const decide = async (reg: NewRegistration, clock: ManualClock, decision: "approve" | "deny", userCode = reg.attempt.userCode, email = ADA) =>
  (await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await member(email), userCode, decision }, clock)).outcome;

/** The outbox rows of one registration, oldest first, each checked against its published JSON Schema. */
async function eventsOf(registrationId: string) {
  const rows = await getDb().webhookEvent.findMany({ orderBy: { id: "asc" } });
  const payloads = rows.map((row) => JSON.parse(row.payload) as { type: string; timestamp: string; data: Record<string, unknown> });
  const mine = payloads.filter((p) => p.data.registration_id === registrationId);
  for (const payload of mine) assertValidPayload(payload);
  return mine;
}

function expectNoSecrets(payload: unknown, reg: NewRegistration, extra: string[] = []) {
  const text = JSON.stringify(payload);
  for (const secret of [reg.claimToken, reg.attempt.attemptToken, reg.attempt.userCode, ...extra]) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/@example\.com/);
}

let receiver: Receiver;
const added: string[] = [];

beforeAll(async () => {
  configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
afterEach(async () => {
  useTestConfig();
  receiver.answer = () => ({ status: 204 });
  while (added.length) await removeEndpoint(added.pop() ?? "");
});

async function subscribe(clock: ManualClock, events?: string, url = receiver.url) {
  const endpoint = await addEndpoint({ url, events }, clock);
  added.push(endpoint.id);
  receiver.secrets = [endpoint.secret];
  return endpoint;
}

describe("events from the lifecycle, written in the same transaction", () => {
  it("registration for a member → delegation.requested; approval → delegation.approved; RFC 7009 revoke → token.revoked; /account cancel → delegation.cancelled", async () => {
    const clock = new ManualClock();
    const reg = await register(clock);
    expect(await decide(reg, clock, "approve")).toBe("approved");
    clock.advance(5);
    const poll = await pollClaim(reg.claimToken, clock);
    if (!poll.ok) throw new Error(poll.error);
    await revokeAccessToken(poll.accessToken, clock);
    await revokeAccessToken(poll.accessToken, clock); // idempotent: no second event
    const delegation = await getDb().delegation.findFirstOrThrow({ where: { registrationId: reg.registrationId } });
    const ada = await member(ADA);
    expect((await cancelDelegation(ada.id, delegation.id, clock)).outcome).toBe("cancelled");
    expect((await cancelDelegation(ada.id, delegation.id, clock)).outcome).toBe("already_cancelled");

    const events = await eventsOf(reg.registrationId);
    expect(events.map((e) => e.type)).toEqual(["delegation.requested", "delegation.approved", "token.revoked", "delegation.cancelled"]);
    const common = { registration_id: reg.registrationId, member_id: ada.id, client_name: "Webhook Test Agent", scopes: [...SCOPES] };
    expect(events[0].data).toEqual({ ...common, claim_expires_at: reg.claimExpiresAt.toISOString() });
    expect(events[1].data).toEqual({ ...common, delegation_id: delegation.id });
    expect(events[2].data).toEqual({ ...common, delegation_id: delegation.id });
    expect(events[3].data).toEqual({ ...common, delegation_id: delegation.id, revoked_tokens: 0 });
    expect(events[0].timestamp).toBe(clock.now().toISOString().replace(/T.*/, "") + "T12:00:00.000Z");
    for (const event of events) expectNoSecrets(event, reg, [poll.accessToken]);
  });

  it("registration for an unknown e-mail → no event at all (webhooks leak no more than the API)", async () => {
    const clock = new ManualClock();
    const reg = await register(clock, "nobody-here@example.com");
    clock.advance(24 * 3600 + 1);
    expect(await pollClaim(reg.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
    await runDeliveryPass({ clock });
    expect(await eventsOf(reg.registrationId)).toEqual([]);
  });

  it("deny → delegation.denied (refused); five wrong codes → delegation.denied (too_many_wrong_codes)", async () => {
    const clock = new ManualClock();
    const refused = await register(clock);
    expect(await decide(refused, clock, "deny", "")).toBe("denied");
    const locked = await register(clock);
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await decide(locked, clock, "approve", "00000000" === locked.attempt.userCode ? "11111111" : "00000000"));
    expect(outcomes.at(-1)).toBe("locked");
    const refusedEvents = await eventsOf(refused.registrationId);
    const lockedEvents = await eventsOf(locked.registrationId);
    expect(refusedEvents.map((e) => [e.type, e.data.reason])).toEqual([
      ["delegation.requested", undefined],
      ["delegation.denied", "refused"],
    ]);
    expect(lockedEvents.map((e) => [e.type, e.data.reason])).toEqual([
      ["delegation.requested", undefined],
      ["delegation.denied", "too_many_wrong_codes"],
    ]);
  });

  it("an outer claim that ends unapproved → delegation.expired once: lazily on the next poll or refresh, or by the sweep of the delivery pass", async () => {
    const clock = new ManualClock();
    const polled = await register(clock);
    const refreshed = await register(clock, GRACE);
    const forgotten = await register(clock);
    clock.advance(24 * 3600);
    expect(await pollClaim(polled.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
    expect(await pollClaim(polled.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
    expect(await refreshClaim({ claimToken: refreshed.claimToken, email: GRACE }, clock)).toEqual({ ok: false, error: "claim_expired" });
    // The agent of `forgotten` never comes back: only the sweep can see it.
    expect((await eventsOf(forgotten.registrationId)).map((e) => e.type)).toEqual(["delegation.requested"]);
    const summary = await runDeliveryPass({ clock });
    expect(summary.expired).toBeGreaterThanOrEqual(1);
    await runDeliveryPass({ clock });
    for (const reg of [polled, refreshed, forgotten]) {
      expect((await eventsOf(reg.registrationId)).map((e) => e.type)).toEqual(["delegation.requested", "delegation.expired"]);
    }
    expect((await getDb().registration.findUniqueOrThrow({ where: { id: forgotten.registrationId } })).status).toBe("expired");
    expect((await eventsOf(refreshed.registrationId))[1].data.member_id).toBe((await member(GRACE)).id);
  });

  it("a change that rolls back leaves no event (the outbox row is in the change's transaction)", async () => {
    const clock = new ManualClock();
    const before = await getDb().webhookEvent.count();
    const { transaction } = await import("@/lib/db");
    const { webhookDelegationRequested } = await import("@/lib/webhooks/emit");
    const reg = await register(clock);
    const ada = await member(ADA);
    const afterRegister = await getDb().webhookEvent.count();
    await expect(
      transaction(async () => {
        await webhookDelegationRequested(reg.registrationId, ada.id, clock);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await getDb().webhookEvent.count()).toBe(afterRegister);
    expect(afterRegister).toBe(before + 1);
  });
});

describe("delivery to a real receiver (svix verifies every signature)", () => {
  it("delivers each event once with Standard Webhooks headers and a stable msg_ id; the secret is stored encrypted", async () => {
    const clock = new ManualClock();
    const endpoint = await subscribe(clock);
    const stored = await getDb().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(stored.secret).not.toContain(endpoint.secret.slice(6));
    expect(await decryptSecret(stored.secret)).toBe(endpoint.secret);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const reg = await register(clock);
    await decide(reg, clock, "approve");
    const summary = await runDeliveryPass({ clock });
    expect(summary.delivered).toBeGreaterThanOrEqual(2);
    const got = receiver.received.filter((r) => r.payload.data.registration_id === reg.registrationId);
    // Sent in parallel: arrival order is not guaranteed (the docs say so).
    expect(got.map((r) => r.payload.type).sort()).toEqual(["delegation.approved", "delegation.requested"]);
    const outbox = await getDb().webhookEvent.findMany({ where: { type: { in: ["delegation.requested", "delegation.approved"] } } });
    for (const r of got) {
      expect(r.id).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
      const event = outbox.find((e) => e.payload === r.body);
      expect(event).toBeDefined();
      expect(r.id).toBe(webhookIdFor(event?.id ?? "", endpoint.id));
      expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(receiver.rejected).toEqual([]);
    // Nothing left: a second pass sends nothing again.
    const before = receiver.received.length;
    await runDeliveryPass({ clock });
    expect(receiver.received.length).toBe(before);
  });

  it("only subscribed event types reach an endpoint with a filter", async () => {
    const clock = new ManualClock();
    await subscribe(clock, "delegation.approved");
    const reg = await register(clock);
    await decide(reg, clock, "approve");
    await runDeliveryPass({ clock });
    expect(receiver.received.filter((r) => r.payload.data.registration_id === reg.registrationId).map((r) => r.payload.type)).toEqual(["delegation.approved"]);
  });

  it("receiver down, then 500, then 200: delivered once acknowledged, with growing gaps; webhook:list shows it", async () => {
    const clock = new ManualClock();
    const down = await startReceiver();
    const port = down.port;
    await down.close(); // nothing listens on this port now
    const endpoint = await subscribe(clock, "delegation.requested", `http://127.0.0.1:${port}/hooks`);
    const reg = await register(clock);
    await runDeliveryPass({ clock, random: noJitter });
    const delivery = async () => getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    const first = await delivery();
    expect(first).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    const gap1 = first.nextAttemptAt.getTime() - clock.now().getTime();
    expect(gap1).toBeGreaterThan(0);
    expect(gap1).toBeLessThanOrEqual(60_000); // first retry within a minute
    let listing = (await listEndpointsWithStats(clock)).find((e) => e.id === endpoint.id);
    expect(listing?.stats).toMatchObject({ backlog: 1, lastSuccessAt: null });
    expect(listing?.stats.lastFailure).toMatch(/no answer: connection failed/);

    // Not yet due: nothing is attempted.
    clock.advance(gap1 / 1000 - 1);
    await runDeliveryPass({ clock, random: noJitter });
    expect((await delivery()).attempts).toBe(1);

    // The receiver is back on the same port but answers 500.
    const back = await startReceiver(port);
    back.secrets = receiver.secrets;
    back.answer = () => ({ status: 500, body: "x".repeat(1000) });
    clock.advance(1);
    const secondAt = clock.now().getTime();
    await runDeliveryPass({ clock, random: noJitter });
    const second = await delivery();
    expect(second).toMatchObject({ status: "pending", attempts: 2, lastStatus: 500 });
    expect(second.lastExcerpt?.length).toBeLessThanOrEqual(256);
    const gap2 = second.nextAttemptAt.getTime() - secondAt;
    expect(gap2).toBeGreaterThan(gap1);

    back.answer = () => ({ status: 200 });
    clock.set(second.nextAttemptAt);
    await runDeliveryPass({ clock, random: noJitter });
    expect(await delivery()).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200 });
    clock.advance(3600);
    await runDeliveryPass({ clock, random: noJitter });
    const got = back.received.filter((r) => r.payload.data.registration_id === reg.registrationId);
    expect(got.length).toBe(2); // the 500 and the 200, same webhook-id
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    listing = (await listEndpointsWithStats(clock)).find((e) => e.id === endpoint.id);
    expect(listing?.stats.backlog).toBe(0);
    expect(listing?.stats.lastSuccessAt).not.toBeNull();
    await back.close();
  });

  it("a claim takes at most its limit of due deliveries, oldest first; the next claim takes the rest", async () => {
    const clock = new ManualClock();
    await subscribe(clock, "delegation.requested");
    for (let i = 0; i < 5; i++) await register(clock);
    const { fanOutEvents } = await import("@/lib/webhooks");
    await fanOutEvents(clock);
    const until = new Date(clock.now().getTime() + claimMs());
    const first = await claimDue(clock.now(), until, 2);
    expect(first).toHaveLength(2);
    const rest = await claimDue(clock.now(), until, 100);
    expect(rest.length).toBeGreaterThanOrEqual(3);
    expect(rest.map((r) => r.id)).not.toContain(first[0]!.id);
    expect(rest.map((r) => r.id)).not.toContain(first[1]!.id);
  });

  it("a claimed delivery whose sender died is sent again once the claim runs out, with the same webhook-id (never lost)", async () => {
    const clock = new ManualClock();
    await subscribe(clock, "delegation.requested");
    const reg = await register(clock);
    // Fan out, then claim as a sender that dies before sending or recording.
    const { fanOutEvents } = await import("@/lib/webhooks");
    await fanOutEvents(clock);
    const claimed = await claimDue(clock.now(), new Date(clock.now().getTime() + claimMs()), 100);
    expect(claimed.length).toBeGreaterThanOrEqual(1);
    // A second claimer at the same moment gets none of them.
    expect(await claimDue(clock.now(), new Date(clock.now().getTime() + claimMs()), 100)).toEqual([]);
    await runDeliveryPass({ clock });
    expect(receiver.received.filter((r) => r.payload.data.registration_id === reg.registrationId)).toEqual([]);
    clock.advance(claimMs() / 1000);
    await runDeliveryPass({ clock });
    const got = receiver.received.filter((r) => r.payload.data.registration_id === reg.registrationId);
    expect(got.length).toBe(1);
    expect(claimed.map((c) => c.id)).toContain(got[0].id);
  });

  it("a private address is refused without WEBHOOK_ALLOW_PRIVATE, at add time and again at delivery time", async () => {
    const clock = new ManualClock();
    useTestConfig({ WEBHOOK_ALLOW_PRIVATE: undefined });
    await expect(addEndpoint({ url: receiver.url }, clock)).rejects.toBeInstanceOf(WebhookAddressError);
    await expect(addEndpoint({ url: "https://127.0.0.1/hooks" }, clock)).rejects.toThrow(/private or reserved/);
    await expect(addEndpoint({ url: "https://[::ffff:192.168.1.1]/hooks" }, clock)).rejects.toThrow(/private or reserved/);
    await expect(addEndpoint({ url: "https://localhost/hooks" }, clock)).rejects.toThrow(/private or reserved/);
    for (const address of ["10.0.0.1", "172.16.0.1", "192.168.0.1", "127.0.0.1", "169.254.169.254", "::1", "fe80::1", "fc00::1", "::ffff:10.0.0.1", "100.64.0.1", "0.0.0.0"])
      expect(isForbiddenAddress(address)).toBe(true);
    for (const address of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]) expect(isForbiddenAddress(address)).toBe(false);

    // Added while allowed, then the flag goes away (or DNS changes): the delivery is refused, nothing is sent.
    useTestConfig();
    const endpoint = await subscribe(clock, "delegation.requested");
    useTestConfig({ WEBHOOK_ALLOW_PRIVATE: undefined });
    const reg = await register(clock);
    await runDeliveryPass({ clock });
    expect(receiver.received.filter((r) => r.payload.data.registration_id === reg.registrationId)).toEqual([]);
    const row = await getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    // The receiver is http://127.0.0.1: its scheme is refused first (issue 41 item 6).
    expect(row.lastExcerpt).toMatch(/http:\/\/ endpoint is delivered only while WEBHOOK_ALLOW_PRIVATE=1/);

    // Over https the address is still checked at delivery time, before connecting.
    useTestConfig();
    const secure = await subscribe(clock, "delegation.requested", "https://127.0.0.1:9/hooks");
    useTestConfig({ WEBHOOK_ALLOW_PRIVATE: undefined });
    await register(clock);
    await runDeliveryPass({ clock });
    const secureRow = await getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: secure.id } });
    expect(secureRow).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    expect(secureRow.lastExcerpt).toMatch(/private or reserved address/);
  });

  it("an http:// endpoint is sent nothing while WEBHOOK_ALLOW_PRIVATE=0, with the reason in webhook:list; delivered again once it is 1", async () => {
    const clock = new ManualClock();
    // Added while the flag was 1 (local testing); the flag then goes back to 0.
    const endpoint = await subscribe(clock, "delegation.requested");
    useTestConfig({ WEBHOOK_ALLOW_PRIVATE: undefined });
    const reg = await register(clock);
    const sent = vi.spyOn(http, "request");
    try {
      await runDeliveryPass({ clock, random: noJitter });
      expect(sent).not.toHaveBeenCalled();
    } finally {
      sent.mockRestore();
    }
    expect(receiver.received.filter((r) => r.payload.data.registration_id === reg.registrationId)).toEqual([]);
    const row = await getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatus: null });
    const listing = (await listEndpointsWithStats(clock)).find((e) => e.id === endpoint.id);
    expect(listing?.stats.lastFailure).toMatch(/^no answer: not sent: an http:\/\/ endpoint is delivered only while WEBHOOK_ALLOW_PRIVATE=1/);

    // The operator's command prints the same reason (the CLI reads the same database).
    const list = spawnSync(process.execPath, [TSX, "scripts/webhook.ts", "list"], {
      cwd: ROOT,
      encoding: "utf8",
      env: childEnv({ DATABASE_URL: getConfig().databaseUrl, WEBHOOK_ALLOW_PRIVATE: "0" }),
      timeout: 60_000,
    });
    expect(list.status, list.stderr).toBe(0);
    const lines = list.stdout.split("\n");
    const at = lines.findIndex((line) => line.startsWith(`${endpoint.id}  `));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines[at + 2]).toMatch(/last failure: \S+ \(no answer: not sent: an http:\/\/ endpoint is delivered only while WEBHOOK_ALLOW_PRIVATE=1/);

    // With the flag back on, the retry is delivered.
    useTestConfig();
    clock.advance((row.nextAttemptAt.getTime() - clock.now().getTime()) / 1000 + 1);
    await runDeliveryPass({ clock, random: noJitter });
    await receiver.waitFor((r) => r.payload.data.registration_id === reg.registrationId);
    expect(await getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } })).toMatchObject({ status: "delivered", attempts: 2 });
  }, 90_000);

  it("a public http:// endpoint is never sent plaintext while WEBHOOK_ALLOW_PRIVATE=0", async () => {
    useTestConfig({ WEBHOOK_ALLOW_PRIVATE: undefined });
    const sent = vi.spyOn(http, "request").mockImplementation(() => {
      throw new Error("a plaintext request was attempted");
    });
    try {
      const outcome = await sendWebhook({ url: "http://93.184.216.34/hooks", webhookId: "msg_1", payload: "{}", secrets: [newWebhookSecret()], timestamp: new Date() });
      expect(outcome).toEqual({ status: null, ok: false, excerpt: expect.stringMatching(/^not sent: an http:\/\/ endpoint is delivered only while WEBHOOK_ALLOW_PRIVATE=1/) });
      expect(sent).not.toHaveBeenCalled();
    } finally {
      sent.mockRestore();
    }
  });

  it("webhook:add to an http:// or private address says the server needs WEBHOOK_ALLOW_PRIVATE=1 too; a public https one says nothing", async () => {
    const clock = new ManualClock();
    const local = await subscribe(clock, "delegation.requested");
    expect(local.note).toMatch(/an http:\/\/ URL at a private address: the running server delivers here only while it too has WEBHOOK_ALLOW_PRIVATE=1/);
    const privateHttps = await subscribe(clock, "delegation.requested", "https://10.1.2.3/hooks");
    expect(privateHttps.note).toMatch(/a private address: .*WEBHOOK_ALLOW_PRIVATE=1/);
    const publicHttps = await subscribe(clock, "delegation.requested", "https://93.184.216.34/hooks");
    expect(publicHttps.note).toBeUndefined();
  });

  it("after rotation both secrets sign for 24 h (each verifies alone), then only the new one", async () => {
    const clock = new ManualClock();
    const endpoint = await subscribe(clock, "delegation.requested");
    const rotated = await rotateEndpointSecret(endpoint.id, clock);
    if (!rotated) throw new Error("no endpoint");
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previousValidUntil.getTime() - clock.now().getTime()).toBe(24 * 3600 * 1000);
    receiver.secrets = [endpoint.secret, rotated.secret];
    const during = await register(clock);
    await runDeliveryPass({ clock });
    const [a] = await receiver.waitFor((r) => r.payload.data.registration_id === during.registrationId);
    expect(a.verifiedBy).toEqual([0, 1]);
    expect(a.signature.split(" ")).toHaveLength(2);

    clock.advance(24 * 3600);
    const after = await register(clock);
    await runDeliveryPass({ clock });
    const [b] = await receiver.waitFor((r) => r.payload.data.registration_id === after.registrationId);
    expect(b.verifiedBy).toEqual([1]);
    expect(b.signature.split(" ")).toHaveLength(1);
    expect(await rotateEndpointSecret("ep_unknown", clock)).toBeNull();
  });
});

describe("the retry schedule", () => {
  it("first retry within a minute, growing gaps, capped at 12 h, given up three days after the event", () => {
    const start = new Date(Date.UTC(2026, 0, 1));
    expect(baseRetryDelaySeconds(1)).toBe(30);
    const gaps: number[] = [];
    let now = start;
    let failures = 0;
    for (;;) {
      failures++;
      const next = nextAttemptAt(failures, now, start, noJitter, 1);
      if (!next) break;
      gaps.push(next.getTime() - now.getTime());
      now = next;
    }
    expect(gaps[0]).toBeLessThanOrEqual(60_000);
    for (let i = 1; i < gaps.length - 1; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(12 * 3600 * 1000);
    expect(now.getTime() - start.getTime()).toBe(GIVE_UP_AFTER_SECONDS * 1000);
    // Jitter stays within ±20 %.
    expect(nextAttemptAt(1, start, start, () => 0, 1)?.getTime()).toBe(start.getTime() + 24_000);
    expect(nextAttemptAt(1, start, start, () => 1, 1)?.getTime()).toBe(start.getTime() + 36_000);
  });

  it("a delivery failing for three days is given up (status failed) and counted by webhook:list", async () => {
    const clock = new ManualClock();
    const endpoint = await subscribe(clock, "delegation.requested");
    receiver.answer = () => ({ status: 503 });
    await register(clock);
    const row = async () => getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    const started = clock.now().getTime();
    await runDeliveryPass({ clock });
    for (let i = 0; i < 40 && (await row()).status === "pending"; i++) {
      clock.advance(12 * 3600);
      await runDeliveryPass({ clock });
    }
    // Given up at the three-day mark, not before.
    expect(clock.now().getTime() - started).toBeGreaterThanOrEqual(GIVE_UP_AFTER_SECONDS * 1000);
    expect(clock.now().getTime() - started).toBeLessThanOrEqual((GIVE_UP_AFTER_SECONDS + 12 * 3600) * 1000);
    const final = await row();
    expect(final.status).toBe("failed");
    expect(final.lastStatus).toBe(503);
    expect((await listEndpointsWithStats(clock)).find((e) => e.id === endpoint.id)?.stats).toMatchObject({ backlog: 0, gaveUp: 1 });
  });
});

describe("retention", () => {
  it("forgets finished deliveries and their events after 14 days; pending ones and their events stay", async () => {
    const clock = new ManualClock();
    const ok = await subscribe(clock, "delegation.requested");
    const down = await startReceiver();
    await down.close();
    const stuck = await addEndpoint({ url: `http://127.0.0.1:${down.port}/hooks`, events: "delegation.requested" }, clock);
    added.push(stuck.id);
    const reg = await register(clock);
    await runDeliveryPass({ clock });
    const event = (await getDb().webhookEvent.findMany()).find((e) => e.payload.includes(reg.registrationId));
    expect(await getDb().webhookDelivery.count({ where: { eventId: event?.id } })).toBe(2);
    // Move the stuck delivery's next try far away, so it stays pending at the prune.
    await getDb().webhookDelivery.updateMany({ where: { endpointId: stuck.id }, data: { nextAttemptAt: new Date(clock.now().getTime() + 30 * 24 * 3600 * 1000) } });
    clock.advance(RETENTION_SECONDS + 1);
    expect(await pruneOld(clock, true)).toBeGreaterThanOrEqual(1);
    expect(await getDb().webhookDelivery.findMany({ where: { eventId: event?.id } })).toMatchObject([{ endpointId: stuck.id, status: "pending" }]);
    expect(await getDb().webhookEvent.count({ where: { id: event?.id } })).toBe(1);
    // Once that one is finished too, the event goes with it.
    await getDb().webhookDelivery.updateMany({ where: { endpointId: stuck.id }, data: { status: "failed" } });
    await pruneOld(clock, true);
    expect(await getDb().webhookEvent.count({ where: { id: event?.id } })).toBe(0);
    expect(ok.id).toMatch(/^ep_/);
  });
});

describe("the cron route's check", () => {
  it("accepts only Bearer CRON_SECRET, and nothing when CRON_SECRET is unset", () => {
    expect(cronAuthorized("Bearer s3cret-value", "s3cret-value")).toBe(true);
    expect(cronAuthorized("Bearer wrong", "s3cret-value")).toBe(false);
    expect(cronAuthorized(null, "s3cret-value")).toBe(false);
    expect(cronAuthorized("Bearer ", undefined)).toBe(false);
    expect(cronAuthorized("Bearer undefined", undefined)).toBe(false);
  });
});
