// Webhooks end to end: a real `next start` whose in-process loop delivers to a real receiver (node:http in
// this test, every signature verified with the svix package, every payload validated against its published
// JSON Schema). Each event type comes from a real flow over HTTP: registration, the browser's decision form
// (approve, deny, five wrong codes), RFC 7009 revocation, /account revocation. Then: receiver down → 500 →
// 200 with growing gaps. The crash and two-instance cases: webhooks-restart.test.ts, webhooks-instances.test.ts.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decisionFormBinding } from "@/lib/approval";
import { createFormToken } from "@/lib/csrf";
import { getDb } from "@/lib/db/prisma";
import { revokeFormToken } from "@/lib/delegations/revoke-form";
import { addEndpoint } from "@/lib/webhooks";
import { attemptTokenOf, newMember, poll, postForm, register, startAuthServer, useServerDatabase, type RegistrationJson, type TokenJson } from "../support/agent-auth";
import { sessionCookie } from "../support/browser-session";
import { childEnv, ROOT } from "../support/databases";
import type { TestServer } from "../support/server";
import { startReceiver, type Receiver, type ReceivedWebhook } from "../support/webhook-receiver";
import { configureFile } from "../support/config";

const CRON_SECRET = "cron-secret-for-the-webhook-tests-0123456789";
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: "1", CRON_SECRET };
/** The tests' own options (lib/config/test-options.ts): a pass every 200 ms, retries in seconds. */
const WEBHOOK_FLAGS = ["--test-webhook-poll-ms=200", "--test-webhook-retry-scale=0.05"];
const sameOrigin = { "Sec-Fetch-Site": "same-origin", Origin: "null" };
// This process adds endpoints on 127.0.0.1 too (lib/webhooks addEndpoint checks the address).
configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });

function webhookCli(databaseUrl: string, ...args: string[]) {
  return spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/webhook.ts", ...args], {
    cwd: ROOT,
    env: childEnv({ DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: "1" }),
    encoding: "utf8",
  });
}

async function memberId(email: string): Promise<string> {
  return (await getDb().member.findUniqueOrThrow({ where: { email } })).id;
}

function forForm(base: string, path: string, fields: Record<string, string>, cookie: string): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, ...sameOrigin },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The member's decision through the real form endpoint, as the browser posts it. */
async function decide(base: string, reg: RegistrationJson, email: string, decision: "approve" | "deny", userCode = reg.claim.user_code): Promise<Response> {
  const token = attemptTokenOf(reg);
  const formToken = await createFormToken(decisionFormBinding(await memberId(email), token));
  return forForm(base, "/agent/authorize/decision", { claim_attempt_token: token, decision, user_code: userCode, form_token: formToken }, await sessionCookie(base, email));
}

const about = (registrationId: string) => (r: ReceivedWebhook) => r.payload.data.registration_id === registrationId;

describe("every event type from a real flow, delivered by the server's loop and verified with svix", () => {
  let server: TestServer;
  let receiver: Receiver;
  let endpointId = "";

  beforeAll(async () => {
    server = await startAuthServer(WEBHOOK_ENV, WEBHOOK_FLAGS);
    useServerDatabase(server.databaseUrl);
    receiver = await startReceiver();
    // The operator's command: prints the id and the secret once.
    const added = webhookCli(server.databaseUrl, "add", "--url", receiver.url);
    expect(added.status, added.stderr).toBe(0);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(added.stdout)?.[0];
    endpointId = /ep_[A-Za-z0-9_-]+/.exec(added.stdout)?.[0] ?? "";
    expect(secret).toBeDefined();
    // An http:// receiver on loopback: the command says the server needs the flag too (issue 42).
    expect(added.stdout).toMatch(/^Note: an http:\/\/ URL at a private address: the running server delivers here only while it too has WEBHOOK_ALLOW_PRIVATE=1/m);
    receiver.secrets = [secret ?? ""];
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it("requested → approved → token.revoked → cancelled; nothing secret in any payload", async () => {
    const base = server.baseUrl;
    const email = await newMember();
    const reg = await register(base, email);
    await receiver.waitFor((r) => about(reg.registration_id)(r) && r.payload.type === "delegation.requested");

    const approval = await decide(base, reg, email, "approve");
    expect(approval.status).toBe(303);
    await receiver.waitFor((r) => about(reg.registration_id)(r) && r.payload.type === "delegation.approved");

    const tokenResponse = await poll(base, reg.claim_token);
    expect(tokenResponse.status).toBe(200);
    const tokens = (await tokenResponse.json()) as TokenJson;
    expect((await postForm(base, "/oauth2/revoke", { token: tokens.access_token })).status).toBe(200);
    await receiver.waitFor((r) => about(reg.registration_id)(r) && r.payload.type === "token.revoked");

    const delegation = await getDb().delegation.findFirstOrThrow({ where: { registrationId: reg.registration_id } });
    const member = await memberId(email);
    const cancel = await forForm(
      base,
      "/account/revoke",
      { delegation_id: delegation.id, form_token: await revokeFormToken(member, delegation.id) },
      await sessionCookie(base, email),
    );
    expect(cancel.status).toBe(303);
    const all = await receiver.waitFor((r) => about(reg.registration_id)(r) && r.payload.type === "delegation.cancelled");
    expect(all).toHaveLength(1);

    const mine = receiver.received.filter(about(reg.registration_id));
    expect(mine.map((r) => r.payload.type)).toEqual(["delegation.requested", "delegation.approved", "token.revoked", "delegation.cancelled"]);
    for (const r of mine) {
      expect(r.payload.data.member_id).toBe(member);
      expect(r.payload.data.client_name).toBe("HTTP Test Agent");
      for (const secret of [reg.claim_token, attemptTokenOf(reg), reg.claim.user_code, tokens.access_token, tokens.identity_assertion, email]) expect(r.body).not.toContain(secret);
    }
    expect(new Set(mine.map((r) => r.id)).size).toBe(4);
    expect(receiver.rejected).toEqual([]);
  });

  it("deny and the lock after five wrong codes → delegation.denied with its reason; an unknown e-mail → no event", async () => {
    const base = server.baseUrl;
    const email = await newMember();
    const refused = await register(base, email);
    expect((await decide(base, refused, email, "deny", "")).status).toBe(303);
    const locked = await register(base, email);
    const wrong = locked.claim.user_code === "00000000" ? "11111111" : "00000000";
    for (let i = 0; i < 5; i++) expect((await decide(base, locked, email, "approve", wrong)).status).toBeLessThan(500);
    const unknown = await register(base, "nobody-at-all@example.com");
    const [deny] = await receiver.waitFor((r) => about(refused.registration_id)(r) && r.payload.type === "delegation.denied");
    const [lock] = await receiver.waitFor((r) => about(locked.registration_id)(r) && r.payload.type === "delegation.denied");
    expect(deny.payload.data.reason).toBe("refused");
    expect(lock.payload.data.reason).toBe("too_many_wrong_codes");
    // The loop has passed since the unknown registration (later events arrived): it produced nothing.
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received.filter(about(unknown.registration_id))).toEqual([]);
  });

  it("webhook:list shows the last success and an empty backlog; remove and rotate-secret answer one line for an unknown id", async () => {
    const list = webhookCli(server.databaseUrl, "list");
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain(receiver.url);
    expect(list.stdout).toMatch(/last success: \d{4}-\d\d-\d\dT/);
    expect(list.stdout).toContain("backlog: 0 pending");
    expect(list.stdout).not.toContain("whsec_");
    const remove = webhookCli(server.databaseUrl, "remove", "ep_nope");
    expect(remove.status).toBe(2);
    expect(remove.stderr.trim()).toBe("webhook:remove: no webhook endpoint ep_nope");
    expect(endpointId).toMatch(/^ep_/);
  });

  it("receiver down, then 500, then 200: delivered once acknowledged, with growing gaps (schedule scaled ×0.05)", async () => {
    const flaky = await startReceiver();
    flaky.secrets = receiver.secrets;
    flaky.answer = (_r, index) => (index === 0 ? "drop" : index === 1 ? { status: 500 } : { status: 200 });
    const endpoint = await addEndpoint({ url: flaky.url, events: "delegation.requested" });
    flaky.secrets = [endpoint.secret];
    const email = await newMember();
    const reg = await register(server.baseUrl, email);
    const attempts = await flaky.waitFor(about(reg.registration_id), 3, 30_000);
    await new Promise((r) => setTimeout(r, 3000));
    const all = flaky.received.filter(about(reg.registration_id));
    expect(all).toHaveLength(3); // nothing after the 200
    expect(new Set(all.map((r) => r.id)).size).toBe(1);
    const gap1 = attempts[1].receivedAt - attempts[0].receivedAt;
    const gap2 = attempts[2].receivedAt - attempts[1].receivedAt;
    // Scaled: the first retry within 60 s × 0.05 = 3 s, plus the loop's 200 ms polling and a loaded machine's delay.
    expect(gap1).toBeLessThan(60_000 * 0.05 + 1500);
    expect(gap2).toBeGreaterThan(gap1);
    const row = await getDb().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    expect(row).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200 });
    await flaky.close();
  });

  it("GET /api/cron/webhooks runs a pass only for Bearer CRON_SECRET; anything else is 401, other methods 405", async () => {
    const url = `${server.baseUrl}/api/cron/webhooks`;
    expect((await fetch(url)).status).toBe(401);
    const wrong = await fetch(url, { headers: { Authorization: "Bearer not-the-secret" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "invalid_token" });
    const ok = await fetch(url, { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(ok.status).toBe(200);
    expect(Object.keys((await ok.json()) as object).sort()).toEqual(["delivered", "expired", "fannedOut", "gaveUp", "retrying"]);
    expect((await fetch(url, { method: "POST", headers: { Authorization: `Bearer ${CRON_SECRET}` } })).status).toBe(405);
  });

  it("the docs page is served, has its markdown twin, and is listed in the docs index and the sitemap", async () => {
    const base = server.baseUrl;
    const page = await fetch(`${base}/docs/webhooks`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("webhook-signature");
    const twin = await fetch(`${base}/docs/webhooks.md`);
    expect(twin.status).toBe(200);
    expect(twin.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await twin.text()).toContain("urn:agent-gate:webhook:token.revoked");
    expect(await (await fetch(`${base}/sitemap.xml`)).text()).toContain(`${base}/docs/webhooks`);
    expect(await (await fetch(`${base}/docs`)).text()).toContain("/docs/webhooks");
  });
});
