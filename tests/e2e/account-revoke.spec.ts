// Revoking a delegation from /account (CONTRACT.md §8): tokens fail at once, the assertion is refused,
// the registration is cancelled, and the dashboard shows it.
import { exchangeAssertion, pollToken, readOwn, registerAgent } from "./agent";
import { baseUrl, signInFromLoginPage, expect, test } from "./fixtures";

test("revoke from /account: token 401, assertion invalid_grant, status cancelled", async ({ page, request }) => {
  const registration = await registerAgent(request, "edsger@example.com", "Edsger's Revocable Agent");
  await signInFromLoginPage(page, "edsger@example.com");
  await page.goto(registration.claim.verification_uri);
  await page.getByLabel("Code").fill(registration.claim.user_code);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("heading", { name: "Access approved" })).toBeVisible();
  const poll = await pollToken(request, registration.claim_token);
  // The server stamps the poll while answering it: count the interval from the answer.
  const polledAt = Date.now();
  expect(poll.status).toBe(200);
  const accessToken = poll.body.access_token as string;
  const assertion = poll.body.identity_assertion as string;
  expect((await readOwn(request, "registrations", accessToken)).body).toEqual({
    registrations: [{ id: registration.registration_id, registration_type: "service_auth", status: "active" }],
  });

  await page.goto(`${baseUrl()}/account`);
  const row = page.getByTestId("delegation-row").filter({ hasText: "Edsger's Revocable Agent" });
  // The agent-chosen name is shown isolated (issue 13).
  await expect(row.locator("bdi[dir=auto]")).toHaveText("Edsger's Revocable Agent");
  await expect(row).toContainText("Active");
  await expect(row).toContainText("See your account ID and your e-mail address (read only)");
  await expect(row).not.toContainText(/Last used\s*never/);
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/account?revoked=cancelled`);
  await expect(page.getByRole("status")).toContainText("Access revoked");
  await expect(row).toContainText("Revoked");
  await expect(row).not.toContainText("Cancelled");
  await expect(row.getByRole("button", { name: "Revoke" })).toHaveCount(0);
  await expect(page.locator("[data-testid=audit-row][data-type=cancellation]").filter({ hasText: registration.registration_id })).toHaveCount(1);

  const account = await readOwn(request, "account", accessToken);
  expect(account.status).toBe(401);
  expect(account.challenge).toContain('error="invalid_token"');
  expect((await readOwn(request, "registrations", accessToken)).status).toBe(401);
  expect(await exchangeAssertion(request, assertion)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  // The claim cannot mint new tokens either (after the poll interval).
  await page.waitForTimeout(Math.max(0, polledAt + registration.claim.interval * 1000 + 500 - Date.now()));
  expect(await pollToken(request, registration.claim_token)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
});
