// Shared Playwright helpers: the server's base URL, signing in as a demo member, and `test`, which fails any
// test during which a page reported a Content-Security-Policy violation (issue 19: every human page works
// under the policy). Specs import `test` and `expect` from here.
import { expect, test as base, type BrowserContext, type Page } from "@playwright/test";
import { DEMO_PASSWORD } from "../../lib/demo/data";

export { expect };

/** Marks what the pages' own listener reports, so it is told apart from other console output. */
const VIOLATION_MARK = "[csp-violation]";

/**
 * Collects what the pages of `context` report as Content-Security-Policy violations, from now on: the pages' own
 * listener (init scripts run in every page and frame before the page's scripts, and are not subject to the CSP) and
 * Chromium's console lines ("Refused to execute inline script because it violates…").
 */
export async function watchCspViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.addInitScript((mark: string) => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`${mark} ${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`);
    });
  }, VIOLATION_MARK);
  context.on("console", (message) => {
    const text = message.text();
    if (text.startsWith(VIOLATION_MARK) || /Content Security Policy/i.test(text)) violations.push(`${message.location().url}: ${text}`);
  });
  return violations;
}

export const test = base.extend<{ cspViolations: string[] }>({
  cspViolations: [
    async ({ context }, use) => {
      const violations = await watchCspViolations(context);
      await use(violations);
      expect(violations, "Content-Security-Policy violations reported by the pages").toEqual([]);
    },
    { auto: true },
  ],
});

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
