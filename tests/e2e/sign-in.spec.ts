import { baseUrl, signIn, signInFromLoginPage, expect, test } from "./fixtures";

test("a demo member signs in and out", async ({ page }) => {
  await signInFromLoginPage(page, "ada@example.com");
  await expect(page.getByRole("heading", { name: "Your account" })).toBeVisible();
  await expect(page.getByText("Ada Lovelace")).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/`);
  await page.goto(`${baseUrl()}/account`);
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Faccount/);
});

test("a wrong password gets one generic error and no session", async ({ page }) => {
  await page.goto(`${baseUrl()}/login`);
  await signIn(page, "grace@example.com", "not-the-password");
  await expect(page.locator("form [role=alert]")).toHaveText(/not correct/);
  await page.goto(`${baseUrl()}/account`);
  await expect(page).toHaveURL(/\/login/);
});

test("an unknown e-mail gets the same generic error", async ({ page }) => {
  await page.goto(`${baseUrl()}/login`);
  await signIn(page, "nobody@example.com", "whatever-password");
  await expect(page.locator("form [role=alert]")).toHaveText(/not correct/);
});

test("the return address is honoured for same-origin paths", async ({ page }) => {
  await page.goto(`${baseUrl()}/login?callbackUrl=${encodeURIComponent("/docs")}`);
  await signIn(page, "alan@example.com");
  await expect(page).toHaveURL(`${baseUrl()}/docs`);
});

for (const evil of ["https://evil.example/steal", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"]) {
  test(`an open redirect to ${evil} is refused`, async ({ page }) => {
    await page.goto(`${baseUrl()}/login?callbackUrl=${encodeURIComponent(evil)}`);
    await signIn(page, "katherine@example.com");
    await expect(page).toHaveURL(`${baseUrl()}/account`);
  });
}

test("npm run member:add creates a member who can sign in", async ({ page }) => {
  const { execFileSync } = await import("node:child_process");
  const email = `cli-${Date.now()}@example.com`;
  const out = execFileSync("npm", ["run", "-s", "member:add", "--", "--email", email, "--password", "a fine passphrase", "--name", "Cli Member"], {
    env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_URL },
    encoding: "utf8",
  });
  expect(out).toContain(`Added member ${email}`);
  expect(out).not.toContain("a fine passphrase");
  await page.goto(`${baseUrl()}/login`);
  await signIn(page, email, "a fine passphrase");
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByText("Cli Member")).toBeVisible();
});
