// The human approval page in Chromium (CONTRACT.md §8), with the agent's side spoken over HTTP.
import type { Page } from "@playwright/test";
import { attemptTokenOf, exchangeAssertion, expireAttempt, pollToken, readOwn, registerAgent } from "./agent";
import { baseUrl, signIn, signInFromLoginPage, expect, test } from "./fixtures";

async function expectApprovalForm(page: Page) {
  await expect(page.getByRole("heading", { name: "Approve access for an agent?" })).toBeVisible();
  await expect(page.getByLabel("Code")).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Deny" })).toBeVisible();
}

test("the whole flow: register, sign in, type the code, approve, poll, read, exchange, revoke", async ({ page, request }) => {
  const registration = await registerAgent(request, "ada@example.com", "Ada's Research Helper");

  // Not signed in: sent to /login, and back to the same link afterwards.
  await page.goto(registration.claim.verification_uri);
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe(`/agent/authorize?claim_attempt_token=${attemptTokenOf(registration)}`);
  await signIn(page, "ada@example.com");
  await expect(page).toHaveURL(registration.claim.verification_uri);
  await expectApprovalForm(page);

  // What the owner sees: the agent-chosen name marked as such, scopes in plain words, time left.
  await expect(page.getByTestId("client-name")).toHaveText("Ada's Research Helper");
  // Isolated (issue 13): no character of the agent's choosing can reorder the text around the name.
  await expect(page.getByTestId("client-name").locator("bdi[dir=auto]")).toHaveText("Ada's Research Helper");
  await expect(page.getByText("The agent chose this name itself")).toBeVisible();
  await expect(page.getByText("See your account ID and your e-mail address (read only)")).toBeVisible();
  await expect(page.getByText("See the status of this agent's own registration (read only)")).toBeVisible();
  await expect(page.getByTestId("time-left")).toHaveText(/^(9|10) min \d\d s$/);

  // The browser's own POST carries Origin: null and no Referer (Referrer-Policy: no-referrer) and still works.
  const decisionRequest = page.waitForRequest((r) => r.url().endsWith("/agent/authorize/decision") && r.method() === "POST");
  await page.getByLabel("Code").fill(registration.claim.user_code);
  await page.getByRole("button", { name: "Approve" }).click();
  const sent = await decisionRequest;
  const headers = await sent.allHeaders();
  expect(headers.referer).toBeUndefined();
  expect(headers.origin).toBe("null");
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=approved`);
  await expect(page.getByRole("heading", { name: "Access approved" })).toBeVisible();
  await expect(page.getByText("return to your agent", { exact: false })).toBeVisible();

  // The agent polls and gets its token and assertion.
  const poll = await pollToken(request, registration.claim_token);
  expect(poll.status).toBe(200);
  const accessToken = poll.body.access_token as string;
  const assertion = poll.body.identity_assertion as string;
  expect(accessToken).toMatch(/^aca_/);

  const account = await readOwn(request, "account", accessToken);
  expect(account.status).toBe(200);
  expect(account.body).toMatchObject({ email: "ada@example.com", authorization: { registration_id: registration.registration_id, client_name: "Ada's Research Helper" } });
  const registrations = await readOwn(request, "registrations", accessToken);
  expect(registrations.status).toBe(200);
  expect(registrations.body).toEqual({ registrations: [{ id: registration.registration_id, registration_type: "service_auth", status: "active" }] });

  const exchanged = await exchangeAssertion(request, assertion);
  expect(exchanged.status).toBe(200);
  expect(exchanged.body).not.toHaveProperty("identity_assertion");
  const exchangedToken = exchanged.body.access_token as string;
  expect((await readOwn(request, "account", exchangedToken)).status).toBe(200);

  const revoke = await request.post(`${baseUrl()}/oauth2/revoke`, { form: { token: accessToken } });
  expect(revoke.status()).toBe(200);
  const afterRevoke = await readOwn(request, "account", accessToken);
  expect(afterRevoke.status).toBe(401);
  expect(afterRevoke.challenge).toContain('error="invalid_token"');
  // Revoking one token leaves the other one working.
  expect((await readOwn(request, "account", exchangedToken)).status).toBe(200);

  // The link now says it was used; the dashboard shows the delegation and its activity.
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This request was already approved" })).toBeVisible();
  await page.goto(`${baseUrl()}/account`);
  const row = page.getByTestId("delegation-row").filter({ hasText: "Ada's Research Helper" });
  await expect(row).toContainText("Active");
  const events = page.locator(`[data-testid=audit-row]`).filter({ hasText: registration.registration_id });
  for (const type of ["registration", "approval", "token_issue", "exchange", "revocation"]) await expect(events.and(page.locator(`[data-type=${type}]`))).toHaveCount(1);
  // Never a secret on the page.
  const html = await page.content();
  for (const secret of [accessToken, exchangedToken, registration.claim_token, attemptTokenOf(registration), assertion]) expect(html).not.toContain(secret);
});

test("deny: no code needed, the agent is told access_denied", async ({ page, request }) => {
  const registration = await registerAgent(request, "grace@example.com", "Grace's Agent");
  await signInFromLoginPage(page, "grace@example.com");
  await page.goto(registration.claim.verification_uri);
  await expectApprovalForm(page);
  await page.getByRole("button", { name: "Deny" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=denied`);
  await expect(page.getByRole("heading", { name: "Access denied" })).toBeVisible();
  const poll = await pollToken(request, registration.claim_token);
  expect(poll).toMatchObject({ status: 400, body: { error: "access_denied" } });
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This request was already denied" })).toBeVisible();
});

test("wrong-code lockout: four refusals with tries left, the fifth closes the attempt as denied", async ({ page, request }) => {
  const registration = await registerAgent(request, "alan@example.com", "Alan's Agent");
  await signInFromLoginPage(page, "alan@example.com");
  await page.goto(registration.claim.verification_uri);
  const wrong = registration.claim.user_code === "00000000" ? "11111111" : "00000000";
  for (const left of [4, 3, 2, 1]) {
    await page.getByLabel("Code").fill(wrong);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.locator("p.error[role=alert]")).toHaveText(new RegExp(`not correct\\. ${left} tr(y is|ies are) left`));
    await expectApprovalForm(page);
  }
  // Still pending for the agent.
  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
  await page.getByLabel("Code").fill(wrong);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=locked`);
  await expect(page.getByRole("heading", { name: "Request closed" })).toBeVisible();
  // The right code no longer helps.
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This request was already denied" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  // Wait out the poll interval, then the agent learns it was denied.
  await page.waitForTimeout(registration.claim.interval * 1000 + 500);
  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "access_denied" } });
});

test("not your account: told so without the login hint, cannot decide, attempt stays pending", async ({ page, request }) => {
  const registration = await registerAgent(request, "katherine@example.com", "Someone's Agent");
  await signInFromLoginPage(page, "edsger@example.com");
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This request is not for your account" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Deny" })).toHaveCount(0);
  await expect(page.getByLabel("Code")).toHaveCount(0);
  const html = await page.content();
  expect(html).not.toContain("katherine");
  expect(html).not.toContain(registration.claim.user_code);
  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
});

test("a cross-site form POST from another site changes nothing", async ({ page, request }) => {
  const registration = await registerAgent(request, "sofia@example.com", "Sofia's Agent");
  await signInFromLoginPage(page, "sofia@example.com");
  // An attacker's page on another site that auto-submits an approval (and a denial) to the decision endpoint.
  for (const decision of ["approve", "deny"]) {
    await page.route("http://attacker.test/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<form id="f" method="post" action="${baseUrl()}/agent/authorize/decision">
          <input name="claim_attempt_token" value="${attemptTokenOf(registration)}">
          <input name="user_code" value="${registration.claim.user_code}">
          <input name="decision" value="${decision}">
          <input name="form_token" value="1700000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA">
        </form><script>document.getElementById("f").submit()</script>`,
      }),
    );
    const response = page.waitForResponse((r) => r.url() === `${baseUrl()}/agent/authorize/decision`);
    await page.goto("http://attacker.test/evil");
    expect((await response).status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Request refused" })).toBeVisible();
    await page.unroute("http://attacker.test/**");
  }
  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "Approve access for an agent?" })).toBeVisible();
});

test("unknown, expired and replaced links get clear pages", async ({ page, request }) => {
  await signInFromLoginPage(page, "ada@example.com");
  await page.goto(`${baseUrl()}/agent/authorize?claim_attempt_token=cat_${"A".repeat(43)}`);
  await expect(page.getByRole("heading", { name: "This link is not valid" })).toBeVisible();
  await page.goto(`${baseUrl()}/agent/authorize?claim_attempt_token=not-a-token`);
  await expect(page.getByRole("heading", { name: "This link is not valid" })).toBeVisible();
  await page.goto(`${baseUrl()}/agent/authorize`);
  await expect(page.getByRole("heading", { name: "This link is not valid" })).toBeVisible();

  const registration = await registerAgent(request, "ada@example.com", "Expiring Agent");
  expireAttempt(attemptTokenOf(registration));
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This link has expired" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);

  // The agent refreshes: the old link is closed, the new one works.
  const refresh = await request.post(`${baseUrl()}/agent/identity/claim`, { data: { claim_token: registration.claim_token, email: "ada@example.com" } });
  expect(refresh.status()).toBe(200);
  const { claim_attempt } = (await refresh.json()) as { claim_attempt: { verification_uri: string } };
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This link is no longer in use" })).toBeVisible();
  await page.goto(claim_attempt.verification_uri);
  await expectApprovalForm(page);
});

test("the page is readable on a phone and refuses to be framed", async ({ browser, request }) => {
  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const registration = await registerAgent(request, "private@example.com", "A very long agent name that keeps going to check that it wraps on small screens");
  await signInFromLoginPage(page, "private@example.com");
  const response = await page.goto(registration.claim.verification_uri);
  expect(response?.headers()["x-frame-options"]).toBe("DENY");
  expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(response?.headers()["referrer-policy"]).toBe("no-referrer");
  await expectApprovalForm(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const approve = await page.getByRole("button", { name: "Approve" }).boundingBox();
  expect(approve && approve.height).toBeGreaterThanOrEqual(44);
  await context.close();
});
