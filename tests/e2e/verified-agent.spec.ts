// Issue 44: the approval page for a registration signed with Cloudflare's web-bot-auth signer ("Verified: sent by
// <host>", above the name the agent gave itself, marked as such; then the dashboard and activity log) and for an
// unsigned one (today's warning), all checked with axe-core's WCAG 2.1 A and AA rules.
import type { Page } from "@playwright/test";
import { newAgentKey, signRequest, startDirectory, type DirectoryServer } from "../support/web-bot-agent";
import { registerAgent, type Registration } from "./agent";
import { baseUrl, expect, signIn, test } from "./fixtures";
import { axeViolations } from "./support/axe";

let directory: DirectoryServer | undefined;
test.afterAll(async () => {
  await directory?.close();
});

async function expectNoViolations(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  expect((await axeViolations(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}

test("a signed registration: the member sees who sent it, verified, above the self-given name", async ({ page }) => {
  const key = await newAgentKey();
  directory = await startDirectory([key]);
  const url = `${baseUrl()}/agent/identity`;
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(await signRequest(key, directory.origin, "POST", url)) },
    body: JSON.stringify({ type: "service_auth", login_hint: "grace@example.com", client_name: "Your Bank's Assistant", scopes: ["agent.account.read"] }),
  });
  expect(response.status).toBe(200);
  const registration = (await response.json()) as Registration;

  // Signed out: sent to /login, then back to the link.
  await page.goto(registration.claim.verification_uri);
  await signIn(page, "grace@example.com");
  await expect(page).toHaveURL(registration.claim.verification_uri);
  const verified = page.getByTestId("verified-origin");
  await expect(verified).toHaveText(`Verified: sent by ${new URL(directory.origin).host}`);
  await expect(page.getByTestId("client-name")).toHaveText("Your Bank's Assistant");
  await expect(page.getByTestId("self-given-name-note")).toHaveText("The agent chose this name itself; only the sender above is verified.");
  await expect(page.getByText("We have not checked it, so it may be misleading")).toHaveCount(0);
  // Shown larger than the name the agent gave itself.
  const size = (selector: string) => page.locator(selector).evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
  expect(await size("[data-testid=verified-origin]")).toBeGreaterThan(await size("[data-testid=client-name]"));
  await expectNoViolations(page);

  // Approved, the member's dashboard and activity log carry the verified origin too.
  await page.getByLabel("Code").fill(registration.claim.user_code);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/agent/authorize/done?result=approved`);
  await page.goto(`${baseUrl()}/account`);
  const row = page.locator(`[data-testid=delegation-row][data-registration-id="${registration.registration_id}"]`);
  await expect(row.getByTestId("verified-origin")).toHaveText(`Verified: sent by ${new URL(directory.origin).host}`);
  await expect(page.getByTestId("audit-row").filter({ hasText: registration.registration_id }).first()).toContainText(`(verified: ${new URL(directory.origin).host})`);
  await expectNoViolations(page);
});

test("an unsigned registration: no verified sender, today's warning", async ({ page, request }) => {
  const registration = await registerAgent(request, "grace@example.com", "Unsigned Helper");
  await page.goto(registration.claim.verification_uri);
  await signIn(page, "grace@example.com");
  await expect(page).toHaveURL(registration.claim.verification_uri);
  await expect(page.getByTestId("client-name")).toHaveText("Unsigned Helper");
  await expect(page.getByTestId("verified-origin")).toHaveCount(0);
  await expect(page.getByText("The agent chose this name itself. We have not checked it, so it may be misleading.")).toBeVisible();
  await expectNoViolations(page);
});
