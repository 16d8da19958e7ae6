// Issue 53 (RFC 10027, cross-device consent phishing) against the production server, on SQLite and on PostgreSQL
// (TEST_DATABASE=postgres): the approval page's context lines, the confirmation code's poll answers, "I didn't start
// this" through the real decision form with its webhooks (verified with svix) and the automatic block, the operator
// commands, AGENT_SIGNATURE_REQUIRED, the settings form, and the proof that the verified-only setting is no
// membership oracle: its registration and poll answers are byte for byte those of any pending request.
import { execFile } from "node:child_process";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decisionFormBinding } from "@/lib/approval";
import { SETTING_FIELDS, settingsFormToken } from "@/lib/consent/settings-form";
import { createFormToken } from "@/lib/csrf";
import { getDb } from "@/lib/db/prisma";
import { PHISHING_WARNING } from "@/lib/delegations/wording";
import { claimGrantTokenResponseSchema } from "@/lib/schemas/service-auth";
import { addEndpoint } from "@/lib/webhooks";
import {
  attemptTokenOf,
  CLAIM_GRANT,
  freshIp,
  newMember,
  poll,
  postForm,
  register,
  startAuthServer,
  uniqueEmail,
  useServerDatabase,
  type RegistrationJson,
} from "../support/agent-auth";
import { sessionCookie } from "../support/browser-session";
import { configureFile } from "../support/config";
import { expectNoInternals, hostileString } from "../support/hostile";
import { childEnv, ROOT } from "../support/databases";
import type { TestServer } from "../support/server";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";
import { startReceiver, type Receiver, type ReceivedWebhook } from "../support/webhook-receiver";

// This process adds a webhook endpoint on 127.0.0.1 (lib/webhooks checks the address).
configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });

let server: TestServer;
let base = "";
let receiver: Receiver;
let key: AgentKey;
let directory: DirectoryServer;

beforeAll(async () => {
  server = await startAuthServer({ AGENT_DIRECTORY_ALLOW_PRIVATE: "1", WEBHOOK_ALLOW_PRIVATE: "1" }, ["--test-webhook-poll-ms=200"]);
  base = server.baseUrl;
  useServerDatabase(server.databaseUrl);
  receiver = await startReceiver();
  receiver.secrets = [(await addEndpoint({ url: receiver.url })).secret];
  key = await newAgentKey();
  directory = await startDirectory([key]);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await directory?.close();
});

const memberIdOf = async (email: string): Promise<string> => (await getDb().member.findUniqueOrThrow({ where: { email } })).id;

/** A browser's form POST to one of the signed-in forms: same-origin, the member's session cookie. */
async function browserPost(path: string, cookie: string, fields: Record<string, string>, extraHeaders: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, "sec-fetch-site": "same-origin", origin: "null", ...extraHeaders },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Approve, Deny or "I didn't start this" as the member clicks it on the approval page. */
async function decideInBrowser(reg: RegistrationJson, email: string, decision: "approve" | "deny" | "report"): Promise<Response> {
  const attemptToken = attemptTokenOf(reg);
  const formToken = await createFormToken(decisionFormBinding(await memberIdOf(email), attemptToken));
  const fields = { claim_attempt_token: attemptToken, decision, user_code: decision === "approve" ? reg.claim.user_code : "", form_token: formToken };
  return browserPost("/agent/authorize/decision", await sessionCookie(base, email), fields);
}

/** The member ticks the boxes on /account and presses Save settings. */
async function saveSettings(email: string, settings: { verifiedOnly?: boolean; confirm?: boolean }): Promise<void> {
  const fields: Record<string, string> = { form_token: await settingsFormToken(await memberIdOf(email)) };
  if (settings.verifiedOnly) fields[SETTING_FIELDS.verifiedAgentsOnly] = "on";
  if (settings.confirm) fields[SETTING_FIELDS.confirmUnverifiedAgents] = "on";
  const response = await browserPost("/account/settings", await sessionCookie(base, email), fields);
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe(`${base}/account?settings=saved#agent-settings`);
}

/** The interval has passed, as far as the next poll is concerned (the server's clock cannot be moved). */
async function allowNextPoll(registrationId: string): Promise<void> {
  await getDb().claimAttempt.updateMany({ where: { registrationId, status: { not: "closed" } }, data: { lastPolledAt: new Date(Date.now() - 60_000) } });
}

const pollWith = (claimToken: string, fields: Record<string, string>) => postForm(base, "/oauth2/token", { grant_type: CLAIM_GRANT, claim_token: claimToken, ...fields });

async function page(path: string, cookie: string, forwardedFor = freshIp()): Promise<string> {
  const response = await fetch(`${base}${path}`, { headers: { cookie, "x-forwarded-for": forwardedFor } });
  expect(response.status).toBe(200);
  return response.text();
}

const pathOf = (url: string): string => url.slice(new URL(url).origin.length);

describe("the approval page's context (RFC 10027 §6.1.14)", () => {
  const registerFrom = async (email: string, forwardedFor: string): Promise<RegistrationJson> => {
    const response = await fetch(`${base}/agent/identity`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
      body: JSON.stringify({ type: "service_auth", login_hint: email }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as RegistrationJson;
  };

  it("says when the request was made and whether from the member's network: an IPv4 address, an IPv6 /64, through TRUSTED_PROXY", async () => {
    const email = await newMember();
    const cookie = await sessionCookie(base, email);
    const fromV4 = await registerFrom(email, "198.18.200.1");
    const uri = pathOf(fromV4.claim.verification_uri);
    const same = await page(uri, cookie, "198.18.200.1");
    expect(same).toContain('data-network="same"');
    expect(same).toMatch(/Asked (less than a minute|1 minute) ago \(\d\d:\d\d UTC\)/);
    expect(same).toContain(PHISHING_WARNING);
    expect(same).toContain("I didn&#x27;t start this");
    expect(await page(uri, cookie, "198.18.200.2")).toContain('data-network="different"');

    const fromV6 = await registerFrom(email, "2001:db8:53:1::10");
    const v6 = pathOf(fromV6.claim.verification_uri);
    expect(await page(v6, cookie, "2001:db8:53:1:ffff::1")).toContain('data-network="same"');
    expect(await page(v6, cookie, "2001:db8:53:2::10")).toContain('data-network="different"');
    // The address itself is never stored: only a keyed hash, and only while the request is undecided.
    const rows = await getDb().claimAttempt.findMany({ where: { registrationId: { in: [fromV4.registration_id, fromV6.registration_id] } } });
    for (const row of rows) {
      expect(row.networkHash).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(row)).not.toMatch(/198\.18\.200|2001:db8/);
    }
    expect((await decideInBrowser(fromV4, email, "deny")).status).toBe(303);
    expect((await getDb().claimAttempt.findFirstOrThrow({ where: { registrationId: fromV4.registration_id } })).networkHash).toBeNull();
  });

  it("the sign-in page a verification link leads to carries the warning; the plain sign-in page does not", async () => {
    const reg = await register(base, uniqueEmail());
    const toApproval = await fetch(`${base}${pathOf(reg.claim.verification_uri)}`, { redirect: "manual" });
    expect(toApproval.status).toBe(307);
    const login = await (await fetch(new URL(toApproval.headers.get("location")!, base))).text();
    expect(login).toContain(PHISHING_WARNING);
    expect(await (await fetch(`${base}/login`)).text()).not.toContain(PHISHING_WARNING);
    expect(await (await fetch(`${base}/login?callbackUrl=%2Faccount`)).text()).not.toContain(PHISHING_WARNING);
  });
});

describe("the confirmation code's poll answers (RFC 10027 §6.1.16)", () => {
  async function approvedWithCode(): Promise<{ reg: RegistrationJson; code: string; cookie: string; email: string; approval: Response }> {
    const email = await newMember();
    await saveSettings(email, { confirm: true });
    const reg = await register(base, email);
    const approval = await decideInBrowser(reg, email, "approve");
    const cookie = await sessionCookie(base, email);
    const sealed = approval.headers.getSetCookie().find((c) => c.startsWith("agent-gate-confirmation="));
    if (!sealed) throw new Error("no confirmation cookie");
    const html = await page(pathOf(approval.headers.get("location")!), `${cookie}; ${sealed.split(";")[0]}`);
    const code = /Tell your agent this code: <strong class="code">(\d{3} \d{3})<\/strong>\. Nobody else should ask you for it\./.exec(html)?.[1];
    if (!code) throw new Error("the page shows no confirmation code");
    return { reg, code, cookie, email, approval };
  }

  it("the approval shows the code once to this browser (sealed, HttpOnly, for the approval page and the attempt's time)", async () => {
    const { reg, code, cookie, approval } = await approvedWithCode();
    expect(approval.status).toBe(303);
    expect(approval.headers.get("location")).toBe(reg.claim.verification_uri);
    const setCookie = approval.headers.getSetCookie().find((c) => c.startsWith("agent-gate-confirmation="))!;
    expect(setCookie).toMatch(/; Path=\/agent\/authorize; Max-Age=(59\d|600); HttpOnly; SameSite=Lax$/);
    expect(setCookie).not.toContain(code.replace(" ", ""));
    // Without the cookie (another browser, the same member) the page cannot show it.
    const elsewhere = await page(pathOf(reg.claim.verification_uri), cookie);
    expect(elsewhere).toContain('data-testid="confirmation-code-elsewhere"');
    expect(elsewhere).not.toContain(code);
  });

  it("polls answer 400 confirmation_required until one carries the code; a wrong one is invalid_grant; the pace still applies; then tokens as today", async () => {
    const { reg, code } = await approvedWithCode();
    const required = await poll(base, reg.claim_token);
    expect(required.status).toBe(400);
    expect(required.headers.get("cache-control")).toBe("no-store");
    expect(required.headers.get("pragma")).toBe("no-cache");
    const body = (await required.json()) as Record<string, string>;
    expect(Object.keys(body)).toEqual(["error", "error_description"]);
    expect(body.error).toBe("confirmation_required");
    expect(body.error_description).toContain("confirmation_code");

    await allowNextPoll(reg.registration_id);
    const wrong = await pollWith(reg.claim_token, { confirmation_code: code === "000 000" ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ error: "invalid_grant", error_description: expect.stringContaining("2 tries are left") });

    // Sooner than the interval: slow_down, and the code is not looked at.
    const tooSoon = await pollWith(reg.claim_token, { confirmation_code: code });
    expect(tooSoon.status).toBe(400);
    expect(((await tooSoon.json()) as Record<string, string>).error).toBe("slow_down");
    expect(tooSoon.headers.get("retry-after")).toBe("10");

    // A repeated field is refused before anything (CONTRACT.md §5).
    const repeated = await postForm(base, "/oauth2/token", `grant_type=${encodeURIComponent(CLAIM_GRANT)}&claim_token=${reg.claim_token}&confirmation_code=1&confirmation_code=2`);
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as Record<string, string>).error).toBe("invalid_request");

    await allowNextPoll(reg.registration_id);
    const granted = await pollWith(reg.claim_token, { confirmation_code: code });
    expect(granted.status).toBe(200);
    const tokens = claimGrantTokenResponseSchema.parse(await granted.json());
    const account = await fetch(`${base}/api/v1/agent/account`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(account.status).toBe(200);
    // Later polls need no code.
    await allowNextPoll(reg.registration_id);
    expect((await poll(base, reg.claim_token)).status).toBe(200);
  });

  it("the third wrong code denies the request: access_denied, and delegation.denied with its reason", async () => {
    const { reg, code } = await approvedWithCode();
    const wrong = code === "000 000" ? "111111" : "000000";
    const answers: Record<string, string>[] = [];
    for (let i = 0; i < 3; i++) {
      await allowNextPoll(reg.registration_id);
      answers.push((await (await pollWith(reg.claim_token, { confirmation_code: wrong })).json()) as Record<string, string>);
    }
    expect(answers.map((a) => a.error)).toEqual(["invalid_grant", "invalid_grant", "access_denied"]);
    expect(answers[1]!.error_description).toContain("1 try is left");
    await allowNextPoll(reg.registration_id);
    expect(((await (await pollWith(reg.claim_token, { confirmation_code: code })).json()) as Record<string, string>).error).toBe("access_denied");
    const [denied] = await receiver.waitFor((r) => r.payload.data.registration_id === reg.registration_id && r.payload.type === "delegation.denied");
    expect(denied!.payload.data.reason).toBe("too_many_wrong_confirmation_codes");
  });
});

describe("no membership oracle (RFC 10027 §6.1.7 without telling who is a member)", () => {
  /** An answer's random values (ids, secrets, codes, times) masked; each must be there exactly once. */
  function masker(patterns: [RegExp, string][]): (text: string) => string {
    return (text) => {
      let out = text;
      for (const [pattern, mask] of patterns) {
        expect(text, String(pattern)).toMatch(pattern);
        out = out.replace(pattern, mask);
      }
      return out;
    };
  }
  const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  const TIME = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";
  const maskRegistration = masker([
    [new RegExp(`"registration_id":"${UUID}"`), '"registration_id":"<uuid>"'],
    [/clm_[A-Za-z0-9_-]{43}/, "clm_<secret>"],
    [/cat_[A-Za-z0-9_-]{43}/, "cat_<secret>"],
    [/"user_code":"\d{8}"/, '"user_code":"<code>"'],
    [new RegExp(`"claim_token_expires":"${TIME}"`), '"claim_token_expires":"<time>"'],
  ]);
  const maskRefresh = masker([
    [new RegExp(`"registration_id":"${UUID}"`), '"registration_id":"<uuid>"'],
    [new RegExp(`"claim_attempt_id":"${UUID}"`), '"claim_attempt_id":"<uuid>"'],
    [/cat_[A-Za-z0-9_-]{43}/, "cat_<secret>"],
    [/"user_code":"\d{8}"/, '"user_code":"<code>"'],
    [new RegExp(`"expires_at":"${TIME}"`), '"expires_at":"<time>"'],
  ]);

  interface Seen {
    status: number;
    headers: [string, string][];
    body: string;
  }

  /** Status, every header a client sees (but the date and the request's own id) and the body, masked. */
  async function seen(response: Response, mask = (text: string) => text): Promise<Seen> {
    const headers = [...response.headers].filter(([name]) => name !== "date" && name !== "x-request-id");
    return { status: response.status, headers, body: mask(await response.text()) };
  }

  const agentJson = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": freshIp() }, body: JSON.stringify(body) });

  it("a non-member's, a member's and a verified-only member's unsigned registration get the same answer and the same poll sequence", async () => {
    const verifiedOnly = await newMember();
    await saveSettings(verifiedOnly, { verifiedOnly: true, confirm: true });
    const ordinary = await newMember();
    const emails = [uniqueEmail(), ordinary, verifiedOnly];

    const registrations: RegistrationJson[] = [];
    const answers: Seen[][] = [[], [], []];
    for (const [i, email] of emails.entries()) {
      const response = await agentJson("/agent/identity", { type: "service_auth", login_hint: email, client_name: "Oracle Probe", scopes: ["agent.account.read"] });
      registrations.push((await response.clone().json()) as RegistrationJson);
      answers[i]!.push(await seen(response, maskRegistration));
    }
    // Each step for all three before the next, so their pace is the same.
    const step = async (act: (reg: RegistrationJson, i: number) => Promise<Seen>) => {
      for (const [i, reg] of registrations.entries()) answers[i]!.push(await act(reg, i));
    };
    await step(async (reg) => seen(await poll(base, reg.claim_token))); // authorization_pending
    await step(async (reg) => seen(await poll(base, reg.claim_token))); // slow_down, Retry-After: 10
    await step(async (reg) => {
      await allowNextPoll(reg.registration_id);
      return seen(await poll(base, reg.claim_token)); // authorization_pending
    });
    await step(async (reg) => {
      await getDb().claimAttempt.updateMany({
        where: { registrationId: reg.registration_id },
        data: { expiresAt: new Date(Date.now() - 1000), lastPolledAt: new Date(Date.now() - 60_000) },
      });
      return seen(await poll(base, reg.claim_token)); // expired_token
    });
    const links: string[] = [];
    await step(async (reg, i) => {
      const response = await agentJson("/agent/identity/claim", { claim_token: reg.claim_token, email: emails[i] });
      links.push(((await response.clone().json()) as { claim_attempt: { verification_uri: string } }).claim_attempt.verification_uri);
      return seen(response, maskRefresh);
    });
    await step(async (reg) => seen(await poll(base, reg.claim_token))); // authorization_pending on the new attempt

    expect(answers[0]!.map((a) => a.status)).toEqual([200, 400, 400, 400, 400, 200, 400]);
    expect(answers[0]!.map((a) => (a.status === 400 ? (JSON.parse(a.body) as { error: string }).error : "ok"))).toEqual([
      "ok",
      "authorization_pending",
      "slow_down",
      "authorization_pending",
      "expired_token",
      "ok",
      "authorization_pending",
    ]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);

    // The verified-only member's page offers Deny only; once denied, the agent hears what any denied request says.
    const html = await page(pathOf(links[2]!), await sessionCookie(base, verifiedOnly));
    expect(html).toContain("Only verified agents may ask for access");
    expect(html).toContain('value="deny"');
    expect(html).not.toContain('value="approve"');
    expect(html).not.toContain('name="user_code"');
    const denials: Seen[] = [];
    for (const i of [1, 2]) {
      const reg = registrations[i]!;
      expect((await decideInBrowser({ ...reg, claim: { ...reg.claim, verification_uri: links[i]! } }, emails[i]!, "deny")).status).toBe(303);
      await allowNextPoll(reg.registration_id);
      denials.push(await seen(await poll(base, reg.claim_token)));
    }
    expect(JSON.parse(denials[0]!.body)).toMatchObject({ error: "access_denied" });
    expect(denials[1]).toEqual(denials[0]);
  });
});

/**
 * The operator's command (scripts/agents.ts) on the server's database. Not spawnSync: a child that holds this process's
 * event loop for seconds lets fetch reuse a keep-alive connection the server closed meanwhile ("other side closed").
 */
function agentsCli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["node_modules/tsx/dist/cli.mjs", "scripts/agents.ts", ...args],
      { cwd: ROOT, env: childEnv({ DATABASE_URL: server.databaseUrl }), encoding: "utf8" },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, out: stdout, err: stderr }),
    );
  });
}

describe("I didn't start this, the operator's commands and blocking (RFC 10027 §6.1.6)", () => {
  const signed = async (method: string, path: string, body: string, contentType: string): Promise<Response> => {
    const url = `${base}${path}`;
    return fetch(url, { method, headers: { "content-type": contentType, "x-forwarded-for": freshIp(), ...(await signRequest(key, directory.origin, method, url)) }, body });
  };
  const registerSigned = (email: string) =>
    signed("POST", "/agent/identity", JSON.stringify({ type: "service_auth", login_hint: email, client_name: "Signed Lure" }), "application/json");
  const pollSigned = (claimToken: string) =>
    signed("POST", "/oauth2/token", new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: claimToken }).toString(), "application/x-www-form-urlencoded");
  // A signed agent's token is bound to its origin (issue 52): every read carries the agent's signature.
  const readAccount = async (token: string) => {
    const url = `${base}/api/v1/agent/account`;
    return fetch(url, { headers: { authorization: `Bearer ${token}`, ...(await signRequest(key, directory.origin, "GET", url)) } });
  };
  const about = (registrationId: string, type: string) => (r: ReceivedWebhook) => r.payload.data.registration_id === registrationId && r.payload.type === type;

  async function approvedVictim(): Promise<{ email: string; reg: RegistrationJson; token: string }> {
    const email = await newMember();
    const reg = (await (await registerSigned(email)).json()) as RegistrationJson;
    expect((await decideInBrowser(reg, email, "approve")).headers.get("location")).toBe(`${base}/agent/authorize/done?result=approved`);
    const tokens = (await (await pollSigned(reg.claim_token)).json()) as { access_token: string };
    expect((await readAccount(tokens.access_token)).status).toBe(200);
    return { email, reg, token: tokens.access_token };
  }

  it("three members' reports within 24 hours block the verified origin: new registrations 403, its delegations cancelled; agents:reports shows it, agents:block lifts and sets it", async () => {
    const origin = directory.origin;
    const victim = await approvedVictim();

    const reported: RegistrationJson[] = [];
    for (let i = 0; i < 3; i++) {
      const email = await newMember();
      const response = await registerSigned(email);
      expect(response.status).toBe(200);
      const reg = (await response.json()) as RegistrationJson;
      const report = await decideInBrowser(reg, email, "report");
      expect(report.status).toBe(303);
      expect(report.headers.get("location")).toBe(`${base}/agent/authorize/done?result=reported`);
      const denied = await pollSigned(reg.claim_token);
      expect(((await denied.json()) as { error: string }).error).toBe("access_denied");
      if (i === 0) expect(await page("/account", await sessionCookie(base, email))).toContain("You reported a request you didn&#x27;t start");
      reported.push(reg);
    }

    const refused = await registerSigned(await newMember());
    expect(refused.status).toBe(403);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await refused.json()).toEqual({ error: "agent_blocked", error_description: expect.stringContaining("blocked this agent origin") });
    expect((await readAccount(victim.token)).status).toBe(401);

    // Every report and the block reach the operator's endpoint, signed (svix verifies) and valid against the published schemas.
    for (const [i, reg] of reported.entries()) {
      const [report] = await receiver.waitFor(about(reg.registration_id, "delegation.reported"));
      expect(report!.payload.data).toMatchObject({ agent_origin: origin, origin_blocked: i === 2, report_id: expect.any(String) });
      const [denial] = await receiver.waitFor(about(reg.registration_id, "delegation.denied"));
      expect(denial!.payload.data.reason).toBe("reported");
    }
    const [cancelled] = await receiver.waitFor(about(victim.reg.registration_id, "delegation.cancelled"));
    expect(cancelled!.payload.data).toMatchObject({ reason: "agent_blocked", revoked_tokens: 1 });
    expect(receiver.rejected).toEqual([]);

    const listing = await agentsCli("reports");
    expect(listing.code, listing.err).toBe(0);
    expect(listing.out).toMatch(new RegExp(`^  ${origin.replace(/[.:/]/g, "\\$&")}  3 reports from 3 members, last \\S+  \\[blocked by reports \\S+\\]$`, "m"));
    expect(listing.out).toContain("By network (keyed hash of the requesting address or IPv6 /64):");
    const json = JSON.parse((await agentsCli("reports", "--json", "--days", "1")).out) as {
      byOrigin: { key: string; reports: number; members: number }[];
      byNetwork: { reports: number }[];
    };
    expect(json.byOrigin.find((g) => g.key === origin)).toMatchObject({ reports: 3, members: 3 });
    expect(json.byNetwork.reduce((sum, g) => sum + g.reports, 0)).toBeGreaterThanOrEqual(3);

    const lifted = await agentsCli("block", "--origin", origin, "--unblock");
    expect(lifted.code, lifted.err).toBe(0);
    expect(lifted.out).toContain(`Unblocked ${origin}`);
    const second = await approvedVictim();

    const blocked = await agentsCli("block", "--origin", `${origin}/`);
    expect(blocked.code, blocked.err).toBe(0);
    expect(blocked.out.trim()).toBe(`Blocked ${origin}: 1 active delegation cancelled, 1 access token revoked; its new registrations get 403 agent_blocked.`);
    expect((await readAccount(second.token)).status).toBe(401);
    expect((await registerSigned(await newMember())).status).toBe(403);
    // The command's process wrote the event; the server's loop delivers it.
    const [byOperator] = await receiver.waitFor(about(second.reg.registration_id, "delegation.cancelled"));
    expect(byOperator!.payload.data.reason).toBe("agent_blocked");
    expect((await agentsCli("block", "--origin", origin)).out.trim()).toBe(`${origin} was already blocked: 0 active delegations cancelled, 0 access tokens revoked.`);
    expect((await agentsCli("block", "--origin", origin, "--unblock")).code).toBe(0);
  }, 180_000);

  it("the commands refuse bad input with one line and exit code 2, and change nothing", async () => {
    const cases: [string[], string][] = [
      [["block"], "--origin is required"],
      [["block", "--origin", "https://agent.example/path"], "--origin must be an origin"],
      [["block", "--origin", "ftp://agent.example"], "--origin must be an origin"],
      [["block", "--origin", "not a url"], "--origin must be an origin"],
      [["block", "--origin", "https://never-blocked.example", "--unblock"], "https://never-blocked.example is not blocked"],
      [["block", "--origin", "https://agent.example", "--bogus"], "Unknown option"],
      [["reports", "--days", "0"], "--days must be a whole number from 1 to 90"],
      [["reports", "--days", "91"], "--days must be a whole number from 1 to 90"],
    ];
    const before = await getDb().blockedAgentOrigin.findMany({ orderBy: { origin: "asc" } });
    for (const [args, message] of cases) {
      const result = await agentsCli(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.err).toContain(message);
      expect(result.err.trim().split("\n")).toHaveLength(1);
    }
    expect(await getDb().blockedAgentOrigin.findMany({ orderBy: { origin: "asc" } })).toEqual(before);
  }, 180_000);

  it("a report of an unsigned agent's request keeps its network hash and blocks nothing", async () => {
    const email = await newMember();
    const reg = await register(base, email);
    expect((await decideInBrowser(reg, email, "report")).headers.get("location")).toBe(`${base}/agent/authorize/done?result=reported`);
    const row = await getDb().agentReport.findFirstOrThrow({ where: { registrationId: reg.registration_id } });
    expect(row).toMatchObject({ agentOrigin: null, clientName: "HTTP Test Agent", networkHash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const [report] = await receiver.waitFor(about(reg.registration_id, "delegation.reported"));
    expect(report!.payload.data).toMatchObject({ origin_blocked: false });
    expect(report!.payload.data).not.toHaveProperty("agent_origin");
  });
});

describe("AGENT_SIGNATURE_REQUIRED=1", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startAuthServer({ AGENT_SIGNATURE_REQUIRED: "1", AGENT_DIRECTORY_ALLOW_PRIVATE: "1" });
  });
  afterAll(async () => {
    await strict?.stop();
  });

  it("refuses an unsigned registration with 401 signature_required and the Signature challenge, writing nothing; a signed one is registered", async () => {
    const email = uniqueEmail();
    const body = JSON.stringify({ type: "service_auth", login_hint: email });
    const unsigned = await fetch(`${strict.baseUrl}/agent/identity`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": freshIp() }, body });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get("www-authenticate")).toBe(`Signature realm="${new URL(strict.baseUrl).hostname}", tag="web-bot-auth"`);
    expect(await unsigned.json()).toEqual({ error: "signature_required", error_description: expect.stringContaining("Web Bot Auth") });
    const url = `${strict.baseUrl}/agent/identity`;
    const signedResponse = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...(await signRequest(key, directory.origin, "POST", url)) },
      body,
    });
    expect(signedResponse.status).toBe(200);
    // The other server's database: one registration for the e-mail, the signed one.
    expect(await registrationOrigins(strict.databaseUrl, email)).toEqual([directory.origin]);
  });
});

/** The agent origins of the registrations for a login hint, read straight from a server's own database. */
async function registrationOrigins(databaseUrl: string, email: string): Promise<(string | null)[]> {
  const sql = `SELECT "agentOrigin" FROM "Registration" WHERE "loginHint" = `;
  if (databaseUrl.startsWith("file:")) {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(databaseUrl.slice("file:".length), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(`${sql}?`).all(email) as { agentOrigin: string | null }[]).map((row) => row.agentOrigin);
    } finally {
      db.close();
    }
  }
  const { Client } = await import("pg");
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ agentOrigin: string | null }>(`${sql}$1`, [email])).rows.map((row) => row.agentOrigin);
  } finally {
    await client.end();
  }
}

describe("the settings form (POST /account/settings)", () => {
  it("saves both settings for the signed-in member only from their own form; anything else is refused and changes nothing", async () => {
    const email = await newMember();
    const memberId = await memberIdOf(email);
    const cookie = await sessionCookie(base, email);
    const token = await settingsFormToken(memberId);
    const stored = () => getDb().consentSetting.findUnique({ where: { memberId } });
    const crossSite = await browserPost("/account/settings", cookie, { form_token: token, [SETTING_FIELDS.verifiedAgentsOnly]: "on" }, { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect((await browserPost("/account/settings", cookie, { form_token: "1700000000.forged", [SETTING_FIELDS.verifiedAgentsOnly]: "on" })).status).toBe(403);
    const otherToken = await settingsFormToken(await memberIdOf(await newMember()));
    expect((await browserPost("/account/settings", cookie, { form_token: otherToken, [SETTING_FIELDS.verifiedAgentsOnly]: "on" })).status).toBe(403);
    expect((await browserPost("/account/settings", cookie, { form_token: token, [SETTING_FIELDS.verifiedAgentsOnly]: "yes" })).status).toBe(400);
    expect(await stored()).toBeNull();
    const signedOut = await browserPost("/account/settings", "", { form_token: token });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe(`${base}/login?callbackUrl=%2Faccount`);

    const saved = await browserPost("/account/settings", cookie, { form_token: token, [SETTING_FIELDS.verifiedAgentsOnly]: "on", [SETTING_FIELDS.confirmUnverifiedAgents]: "on" });
    expect(saved.status).toBe(303);
    expect(await stored()).toMatchObject({ verifiedAgentsOnly: true, confirmUnverifiedAgents: true });
    const html = await page("/account", cookie);
    const box = (markup: string, id: string) => new RegExp(`<input type="checkbox" id="${id}"[^>]*>`).exec(markup)?.[0] ?? "";
    expect(box(html, SETTING_FIELDS.verifiedAgentsOnly)).toContain('checked=""');
    expect(box(html, SETTING_FIELDS.confirmUnverifiedAgents)).toContain('checked=""');
    // Unticked boxes are absent from the form: off.
    expect((await browserPost("/account/settings", cookie, { form_token: token })).status).toBe(303);
    expect(await stored()).toMatchObject({ verifiedAgentsOnly: false, confirmUnverifiedAgents: false });
    expect(box(await page("/account", cookie), SETTING_FIELDS.verifiedAgentsOnly)).not.toContain("checked");
    const get = await fetch(`${base}/account/settings`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});

describe("hostile input on issue 53's surfaces (full-range strings, repeated fields)", () => {
  /** A form body whose values may hold any UTF-16 code unit: lone surrogates become U+FFFD, as a browser sends them. */
  const formOf = (fields: [string, string][]) => fields.map(([name, value]) => `${encodeURIComponent(name)}=${new URLSearchParams({ v: value }).toString().slice(2)}`).join("&");

  it("confirmation_code: every value is a clear 400 (never a 500, never an internal); a pending request ignores a well-formed one", { timeout: 240_000 }, async () => {
    const email = await newMember();
    const reg = await register(base, email);
    await fc.assert(
      fc.asyncProperty(fc.array(hostileString(40), { minLength: 1, maxLength: 2 }), async (codes) => {
        const body = formOf([["grant_type", CLAIM_GRANT], ["claim_token", reg.claim_token], ...codes.map((code): [string, string] => ["confirmation_code", code])]);
        const response = await postForm(base, "/oauth2/token", body);
        const text = await response.text();
        expect(response.status, text).toBe(400);
        const answer = JSON.parse(text) as { error: string; error_description: string };
        expect(Object.keys(answer)).toEqual(["error", "error_description"]);
        expect(["authorization_pending", "slow_down", "invalid_request"]).toContain(answer.error);
        expectNoInternals(text, base, "token endpoint");
      }),
      { numRuns: 40 },
    );
    // Nothing moved: the request is still pending, its attempt undecided.
    expect((await getDb().claimAttempt.findFirstOrThrow({ where: { registrationId: reg.registration_id } })).status).toBe("initiated");
  });

  it(
    "the settings form and the decision form: every field value is 303, 400 or 403 (never a 500), and only the member's own well-formed form changes anything",
    { timeout: 240_000 },
    async () => {
      const email = await newMember();
      const memberId = await memberIdOf(email);
      const cookie = await sessionCookie(base, email);
      const token = await settingsFormToken(memberId);
      const reg = await register(base, email);
      const decisionToken = await createFormToken(decisionFormBinding(memberId, attemptTokenOf(reg)));
      const field = fc.oneof(hostileString(30), fc.constantFrom("on", "off", "", "approve", "deny", "report", token, decisionToken));
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("/account/settings", "/agent/authorize/decision"),
          fc.array(fc.tuple(fc.constantFrom(SETTING_FIELDS.verifiedAgentsOnly, SETTING_FIELDS.confirmUnverifiedAgents, "form_token", "decision", "claim_attempt_token"), field), {
            maxLength: 4,
          }),
          async (path, fields) => {
            const tokenField: [string, string] = ["form_token", path === "/account/settings" ? token : decisionToken];
            const response = await fetch(`${base}${path}`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded", cookie, "sec-fetch-site": "same-origin", origin: "null" },
              body: formOf([tokenField, ...fields]),
            });
            const text = await response.text();
            expect([303, 400, 403], `${path} ${response.status}`).toContain(response.status);
            expectNoInternals(text, base, path);
          },
        ),
        { numRuns: 60 },
      );
      // A decision was possible only with the attempt's own token, which no case sent as claim_attempt_token.
      expect((await getDb().claimAttempt.findFirstOrThrow({ where: { registrationId: reg.registration_id } })).status).toBe("initiated");
    },
  );
});
