import { expect, test } from "@playwright/test";
import { baseUrl, signIn, signInFromLoginPage } from "./fixtures";

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
  await expect(page.getByRole("alert")).toHaveText(/not correct/);
  await page.goto(`${baseUrl()}/account`);
  await expect(page).toHaveURL(/\/login/);
});

test("an unknown e-mail gets the same generic error", async ({ page }) => {
  await page.goto(`${baseUrl()}/login`);
  await signIn(page, "nobody@example.com", "whatever-password");
  await expect(page.getByRole("alert")).toHaveText(/not correct/);
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
