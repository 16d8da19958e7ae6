// Shared Playwright helpers: the server's base URL and signing in as a demo member.
import { expect, type Page } from "@playwright/test";
import { DEMO_PASSWORD } from "../../lib/demo/data";

export function baseUrl(): string {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error("E2E_BASE_URL is set by tests/e2e/global-setup.ts");
  return url;
}

export async function signIn(page: Page, email: string, password: string = DEMO_PASSWORD): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function signInFromLoginPage(page: Page, email: string, password: string = DEMO_PASSWORD): Promise<void> {
  await page.goto(`${baseUrl()}/login`);
  await signIn(page, email, password);
  await expect(page).toHaveURL(/\/account$/);
}
