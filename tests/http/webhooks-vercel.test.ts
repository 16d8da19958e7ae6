// The Vercel path of webhook delivery (issue #16 item 4), against the real server as Vercel runs it: every
// request through the route files (NODE_FRONT=off: the front never runs on Vercel), no in-process loop
// (WEBHOOK_DELIVERY=off), and Next's after() asked for explicitly (the tests' --test-webhook-after-response, what
// VERCEL=1 switches on; VERCEL=1 itself would also demand PostgreSQL and an https BASE_URL). Each change's event must
// reach the receiver (signature verified with the svix package) right after the response, with no cron call;
// and what after() could not deliver (the receiver failed) is delivered by the cron route.
// (Its own file: this process's lib functions follow the one DATABASE_URL its configuration first read.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decisionFormBinding } from "@/lib/approval";
import { createFormToken } from "@/lib/csrf";
import { getDb } from "@/lib/db/prisma";
import { revokeFormToken } from "@/lib/delegations/revoke-form";
import { addEndpoint } from "@/lib/webhooks";
import { attemptTokenOf, newMember, poll, postForm, register, startAuthServer, useServerDatabase, type RegistrationJson, type TokenJson } from "../support/agent-auth";
import { sessionCookie } from "../support/browser-session";
import type { TestServer } from "../support/server";
import { startReceiver, type Receiver, type ReceivedWebhook } from "../support/webhook-receiver";
import { configureFile } from "../support/config";

const CRON_SECRET = "cron-secret-for-the-vercel-webhook-tests-0123456789";
const VERCEL_LIKE_ENV = {
  NODE_FRONT: "off",
  WEBHOOK_DELIVERY: "off",
  WEBHOOK_ALLOW_PRIVATE: "1",
  CRON_SECRET,
};
/** The tests' own options (lib/config/test-options.ts): after() as on Vercel, and retries in seconds. */
const VERCEL_LIKE_FLAGS = ["--test-webhook-after-response", "--test-webhook-retry-scale=0.02"];
/** "Promptly": the pass runs as soon as the response is sent; the bound leaves room for a loaded machine. */
const PROMPT_MS = 5000;
const sameOrigin = { "Sec-Fetch-Site": "same-origin", Origin: "null" };
configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });

const about = (registrationId: string, type: string) => (r: ReceivedWebhook) => r.payload.data.registration_id === registrationId && r.payload.type === type;

async function memberId(email: string): Promise<string> {
  return (await getDb().member.findUniqueOrThrow({ where: { email } })).id;
}

function postBrowserForm(base: string, path: string, fields: Record<string, string>, cookie: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, ...sameOrigin },
    body: new URLSearchParams(fields).toString(),
  });
}

async function approve(base: string, reg: RegistrationJson, email: string): Promise<Response> {
  const token = attemptTokenOf(reg);
  const formToken = await createFormToken(decisionFormBinding(await memberId(email), token));
  return postBrowserForm(
    base,
    "/agent/authorize/decision",
    { claim_attempt_token: token, decision: "approve", user_code: reg.claim.user_code, form_token: formToken },
    await sessionCookie(base, email),
  );
}

/** Waits for the event a request caused; returns how long after `answeredAt` (the response) it arrived. */
async function latencyOf(receiver: Receiver, answeredAt: number, predicate: (r: ReceivedWebhook) => boolean): Promise<number> {
  const [event] = await receiver.waitFor(predicate, 1, PROMPT_MS);
  return event.receivedAt - answeredAt;
}

describe("webhooks on the Vercel path: after() right after the response, the cron route for the rest", () => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startAuthServer(VERCEL_LIKE_ENV, VERCEL_LIKE_FLAGS);
    useServerDatabase(server.databaseUrl);
    receiver = await startReceiver();
    receiver.secrets = [(await addEndpoint({ url: receiver.url })).secret];
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("registration, approval, RFC 7009 revocation and /account revocation each reach the receiver promptly, signed, with no loop and no cron call", async () => {
    const base = server.baseUrl;
    const email = await newMember();
    const latencies: number[] = [];

    const reg = await register(base, email);
    latencies.push(await latencyOf(receiver, Date.now(), about(reg.registration_id, "delegation.requested")));

    const approval = await approve(base, reg, email);
    expect(approval.status).toBe(303);
    latencies.push(await latencyOf(receiver, Date.now(), about(reg.registration_id, "delegation.approved")));

    const tokenResponse = await poll(base, reg.claim_token);
    expect(tokenResponse.status).toBe(200);
    const tokens = (await tokenResponse.json()) as TokenJson;
    expect((await postForm(base, "/oauth2/revoke", { token: tokens.access_token })).status).toBe(200);
    latencies.push(await latencyOf(receiver, Date.now(), about(reg.registration_id, "token.revoked")));

    const member = await memberId(email);
    const delegation = await getDb().delegation.findFirstOrThrow({ where: { registrationId: reg.registration_id } });
    const cancel = await postBrowserForm(
      base,
      "/account/revoke",
      { delegation_id: delegation.id, form_token: await revokeFormToken(member, delegation.id) },
      await sessionCookie(base, email),
    );
    expect(cancel.status).toBe(303);
    latencies.push(await latencyOf(receiver, Date.now(), about(reg.registration_id, "delegation.cancelled")));

    // Nothing but after() delivers in this server: each event came within the bound of its response.
    for (const latency of latencies) expect(latency).toBeLessThan(PROMPT_MS);
    const mine = receiver.received.filter((r) => r.payload.data.registration_id === reg.registration_id);
    expect(mine.map((r) => r.payload.type)).toEqual(["delegation.requested", "delegation.approved", "token.revoked", "delegation.cancelled"]);
    expect(receiver.rejected).toEqual([]);
    // Nothing left behind: every delivery row of these events is acknowledged.
    const rows = await getDb().webhookDelivery.findMany({ where: { id: { in: mine.map((r) => r.id) } } });
    expect(rows.map((row) => row.status)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
  });

  it("what after() could not deliver (the receiver answered 500) waits, with no loop, until the cron route delivers it", async () => {
    const base = server.baseUrl;
    let failing = true;
    receiver.answer = () => (failing ? { status: 500 } : { status: 204 });
    const email = await newMember();
    const reg = await register(base, email);
    const [first] = await receiver.waitFor(about(reg.registration_id, "delegation.requested"), 1, PROMPT_MS);
    failing = false;
    // The retry is due after ~0.6 s (30 s × --test-webhook-retry-scale 0.02, ±20 %); nothing runs it but the cron.
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.received.filter(about(reg.registration_id, "delegation.requested"))).toHaveLength(1);
    expect(await getDb().webhookDelivery.findUniqueOrThrow({ where: { id: first.id } })).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500 });

    expect((await fetch(`${base}/api/cron/webhooks`, { headers: { Authorization: "Bearer not-the-cron-secret" } })).status).toBe(401);
    const cron = await fetch(`${base}/api/cron/webhooks`, { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(cron.status).toBe(200);
    expect(((await cron.json()) as { delivered: number }).delivered).toBeGreaterThanOrEqual(1);
    const both = receiver.received.filter(about(reg.registration_id, "delegation.requested"));
    expect(both).toHaveLength(2);
    expect(both[1].id).toBe(first.id); // the same webhook-id on the retry
    expect(await getDb().webhookDelivery.findUniqueOrThrow({ where: { id: first.id } })).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 204 });
    expect(receiver.rejected).toEqual([]);
  });
});
