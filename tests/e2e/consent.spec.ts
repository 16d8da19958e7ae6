// Issue 53 in Chromium (RFC 10027, cross-device consent phishing): what the approval page says about when and from
// where a request came, "I didn't start this", the sign-in page a link leads to, and both member settings end to end
// (verified agents only; a confirmation code the agent must send back). Each spec uses a member of its own, so the
// demo members other specs use keep their settings. The axe audit of every new state is in accessibility.spec.ts.
import type { Page } from "@playwright/test";
import { newAgentKey, startDirectory, type DirectoryServer } from "../support/web-bot-agent";
import { pollToken, type Registration } from "./agent";
import { baseUrl, expect, signIn, signInFromLoginPage, test } from "./fixtures";
import { addMember, chooseSettings, registerFromBrowser, registerFromOtherAddress, registerSigned } from "./support/consent";

const WARNING = "Agent Gate never sends you approval links by e-mail or message. If someone sent you this link, deny it.";

let directory: DirectoryServer | undefined;

/** A member of its own who chose these settings on /account, with an unsigned request open on the approval page. */
async function memberWithSettings(page: Page, label: string, settings: { verifiedOnly: boolean; confirm: boolean }, clientName: string) {
  const email = addMember(label);
  await signInFromLoginPage(page, email);
  await chooseSettings(page, settings);
  await expect(page.getByLabel("Only verified agents may ask for access")).toBeChecked({ checked: settings.verifiedOnly });
  await expect(page.getByLabel("Ask unverified agents to confirm a code")).toBeChecked({ checked: settings.confirm });
  const registration = await registerFromBrowser(page, email, clientName);
  await page.goto(registration.claim.verification_uri);
  return { email, registration };
}
test.afterAll(async () => {
  await directory?.close();
});

test("the page says when and from which network the request came; I didn't start this denies and reports it", async ({ page, request }) => {
  const email = addMember("report");
  await signInFromLoginPage(page, email);
  const registration = await registerFromBrowser(page, email, "Helpful Assistant");
  await page.goto(registration.claim.verification_uri);

  await expect(page.getByTestId("phishing-warning")).toHaveText(WARNING);
  await expect(page.getByTestId("request-asked")).toHaveText(/^Asked (less than a minute|1 minute) ago \(\d\d:\d\d UTC\)$/);
  await expect(page.getByTestId("request-network")).toHaveText("From this network: the network you are on now.");
  await expect(page.getByTestId("request-network")).toHaveAttribute("data-network", "same");
  // Three buttons, the third with exactly this text.
  await expect(page.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Deny", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "I didn't start this", exact: true })).toBeVisible();

  // No code is needed to report.
  await page.getByRole("button", { name: "I didn't start this", exact: true }).click();
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=reported`);
  await expect(page.getByRole("heading", { name: "Thank you: request denied and reported" })).toBeVisible();
  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "access_denied" } });
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This request was already denied" })).toBeVisible();

  await page.goto(`${baseUrl()}/account`);
  const reported = page.locator(`[data-testid=audit-row][data-type=report]`).filter({ hasText: registration.registration_id });
  await expect(reported).toHaveCount(1);
  await expect(reported).toContainText("You reported a request you didn't start");
});

test("a request from another address says it came from a different network", async ({ page }) => {
  const email = addMember("network");
  const registration = await registerFromOtherAddress(email, "Elsewhere Agent");
  await signInFromLoginPage(page, email);
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByTestId("request-network")).toHaveAttribute("data-network", "different");
  await expect(page.getByTestId("request-network")).toContainText("From a different network than the one you are on now.");
  await expect(page.getByTestId("request-network")).toContainText("If you did not start this request, do not approve it.");
});

test("the sign-in page a verification link leads to warns before the member signs in", async ({ page, request }) => {
  const email = addMember("signin");
  const response = await request.post(`${baseUrl()}/agent/identity`, { data: { type: "service_auth", login_hint: email } });
  const registration = (await response.json()) as Registration;
  await page.goto(registration.claim.verification_uri);
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
  await expect(page.getByTestId("phishing-warning")).toHaveText(WARNING);
  await signIn(page, email);
  await expect(page).toHaveURL(registration.claim.verification_uri);
  await expect(page.getByTestId("phishing-warning")).toHaveText(WARNING);
  // The plain sign-in page does not carry it.
  await page.context().clearCookies();
  await page.goto(`${baseUrl()}/login`);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect(page.getByTestId("phishing-warning")).toHaveCount(0);
});

test("only verified agents: an unsigned request offers Deny only; a signed one is approved as before", async ({ page, request }) => {
  const { email, registration: unsigned } = await memberWithSettings(page, "verified-only", { verifiedOnly: true, confirm: false }, "Unsigned Agent");
  await expect(page.getByRole("heading", { name: "Only verified agents may ask for access" })).toBeVisible();
  await expect(page.getByTestId("verified-only-explanation")).toContainText("This request is not signed, so it cannot be approved.");
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(page.getByLabel("Code")).toHaveCount(0);
  // Until the member denies, the agent hears what any pending request gets.
  expect(await pollToken(request, unsigned.claim_token)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
  await page.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=denied`);
  // Past the interval, and past the server's 5 s keep-alive, so the poll never meets a connection as it closes.
  await page.waitForTimeout(unsigned.claim.interval * 1000 + 1500);
  expect(await pollToken(request, unsigned.claim_token)).toMatchObject({ status: 400, body: { error: "access_denied" } });

  const key = await newAgentKey();
  directory = await startDirectory([key]);
  const signed = await registerSigned(key, directory.origin, email, "Signed Agent");
  await page.goto(signed.claim.verification_uri);
  await expect(page.getByTestId("verified-origin")).toHaveText(`Verified: sent by ${new URL(directory.origin).host}`);
  await page.getByLabel("Code").fill(signed.claim.user_code);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=approved`);
});

test("a confirmation code: approving shows it, the agent sends it back, then gets its tokens", async ({ page, request }) => {
  const { registration } = await memberWithSettings(page, "confirm", { verifiedOnly: false, confirm: true }, "Code Agent");
  await expect(page.getByTestId("confirmation-code-note")).toBeVisible();
  await page.getByLabel("Code").fill(registration.claim.user_code);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page).toHaveURL(registration.claim.verification_uri);
  const line = page.getByTestId("confirmation-code");
  await expect(line).toHaveText(/^Tell your agent this code: \d{3} \d{3}\. Nobody else should ask you for it\.$/);
  const shown = /(\d{3} \d{3})/.exec((await line.textContent()) ?? "")![1]!;
  // A reload in the same browser shows it again.
  await page.reload();
  await expect(line).toContainText(shown);
  await expect(page.getByRole("button", { name: "I didn't start this", exact: true })).toBeVisible();

  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "confirmation_required" } });
  await page.waitForTimeout(registration.claim.interval * 1000 + 1500);
  const confirmed = await request.post(`${baseUrl()}/oauth2/token`, {
    form: { grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: registration.claim_token, confirmation_code: shown },
  });
  expect(confirmed.status()).toBe(200);
  expect(((await confirmed.json()) as { access_token: string }).access_token).toMatch(/^aca_/);
  await page.goto(registration.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "This request was already approved" })).toBeVisible();
  await page.goto(`${baseUrl()}/account`);
  await expect(page.getByTestId("delegation-row").filter({ hasText: "Code Agent" })).toContainText("Active");
});
