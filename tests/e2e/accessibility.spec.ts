// Issue 33: every human page passes axe-core's WCAG 2.1 A and AA rules in Chromium, signed out and signed in
// (the header, the approval page and the account page differ by session), with every state of the approval page
// a member can reach and every document of the corpus.
import type { Page } from "@playwright/test";
import { getCorpus } from "../../lib/docs/corpus";
import { registerAgent } from "./agent";
import { baseUrl, expect, signInFromLoginPage, test, watchCspViolations } from "./fixtures";
import { axeViolations } from "./support/axe";
import { addMember, chooseSettings, registerFromBrowser, registerFromOtherAddress } from "./support/consent";

const DOC_PATHS = getCorpus().docs.map((doc) => `/docs/${doc.slug}`);
const PUBLIC_PATHS = ["/", "/login", "/docs", ...DOC_PATHS, "/map", "/members/ada-lovelace", "/no-such-page"];

test("the audit covers every document of the corpus", () => {
  expect(DOC_PATHS.length).toBeGreaterThan(10);
});

test("the audit reports a violation where there is one, and refuses a page with a frame", async ({ page }) => {
  await page.setContent(`<!doctype html><html lang="en"><title>t</title><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></html>`);
  expect((await axeViolations(page)).map((v) => v.id)).toContain("image-alt");
  await page.setContent(`<!doctype html><html lang="en"><title>t</title><main><iframe title="f" srcdoc="<p>x</p>"></iframe></main></html>`);
  await expect(axeViolations(page)).rejects.toThrow(/without frames/);
});

/** Each page's violations (rule, impact, help and the elements it names), collected so one run lists them all. */
class Audit {
  private readonly found: string[] = [];

  constructor(private readonly page: Page) {}

  /** Audits the page as it is now. */
  async check(label: string): Promise<void> {
    for (const v of await axeViolations(this.page))
      this.found.push(`${label}: ${v.id} (${v.impact ?? "unknown"}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(" ")).join("\n    ")}`);
  }

  async visit(path: string, label = path): Promise<void> {
    await this.page.goto(`${baseUrl()}${path}`);
    // The map's markers and the approval page's countdown render after hydration: audit what a reader meets.
    await this.page.waitForLoadState("networkidle");
    await this.check(label);
  }

  expectNone(): void {
    expect(this.found, `axe violations:\n${this.found.join("\n")}`).toEqual([]);
  }
}

// One test per page, so a failing page names itself; one page for them all, as a reader moving through the site has
// (issue 51 item 8: a fresh browser context loaded and compiled the site's scripts again for every page, about 1.7 s
// of each audit). The page's context is watched for CSP violations as every test's own is (./fixtures.ts).
test.describe("signed out, one page through the site", () => {
  let page: Page;
  let cspViolations: string[];
  test.beforeAll(async ({ browser }) => {
    const context = await browser.newContext();
    cspViolations = await watchCspViolations(context);
    page = await context.newPage();
  });
  test.afterAll(async () => {
    await page.context().close();
  });
  for (const path of PUBLIC_PATHS) {
    test(`signed out: ${path}`, async () => {
      const audit = new Audit(page);
      await audit.visit(path);
      audit.expectNone();
      expect(cspViolations.splice(0), "Content-Security-Policy violations reported by the page").toEqual([]);
    });
  }
});

test("signed out, on a phone-sized screen: documents whose code blocks scroll sideways", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  const audit = new Audit(page);
  for (const path of ["/docs/scopes", "/docs/service-auth", "/map"]) await audit.visit(path, `${path} (360 px)`);
  audit.expectNone();
});

test("signed out: the sign-in page after a wrong password", async ({ page }) => {
  const audit = new Audit(page);
  await page.goto(`${baseUrl()}/login`);
  await page.getByLabel("Email").fill("private@example.com");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toBeVisible();
  await audit.check("/login after a wrong password");
  audit.expectNone();
});

test("signed in: the approval page in each state and the decision page", async ({ page, request }) => {
  test.setTimeout(180_000);
  const audit = new Audit(page);
  const registration = await registerAgent(request, "grace@example.com", "Grace's Audit Helper");
  const authorize = new URL(registration.claim.verification_uri);
  const authorizePath = `${authorize.pathname}${authorize.search}`;
  await signInFromLoginPage(page, "grace@example.com");

  await audit.visit(authorizePath, "/agent/authorize with a pending code");
  await audit.visit(`${authorizePath}&error=wrong_code&remaining=4`, "/agent/authorize after a wrong code");
  await audit.visit("/agent/authorize?claim_attempt_token=unknown", "/agent/authorize with an unknown link");
  const other = await registerAgent(request, "alan@example.com");
  const otherUri = new URL(other.claim.verification_uri);
  await audit.visit(`${otherUri.pathname}${otherUri.search}`, "/agent/authorize for another member's account");

  await page.goto(`${baseUrl()}${authorizePath}`);
  await page.getByLabel("Code").fill(registration.claim.user_code);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page).toHaveURL(/\/agent\/authorize\/done\?result=approved$/);
  await audit.check("/agent/authorize/done");
  await audit.visit(authorizePath, "/agent/authorize once approved");
  audit.expectNone();
});

test("signed in: the account page, with a delegation and after revoking it", async ({ page, request }) => {
  test.setTimeout(120_000);
  const audit = new Audit(page);
  const registration = await registerAgent(request, "katherine@example.com", "Katherine's Audit Helper");
  await signInFromLoginPage(page, "katherine@example.com");
  await audit.visit("/account", "/account with no delegation");
  await page.goto(registration.claim.verification_uri);
  await page.getByLabel("Code").fill(registration.claim.user_code);
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page).toHaveURL(/\/agent\/authorize\/done\?result=approved$/);

  await audit.visit("/account", "/account with a delegation");
  // On a phone the tables become stacked cards (data-label): nothing may scroll out of a keyboard's reach.
  await page.setViewportSize({ width: 360, height: 740 });
  await audit.check("/account with a delegation (360 px)");
  await page.getByTestId("delegation-row").filter({ hasText: "Katherine's Audit Helper" }).getByRole("button", { name: "Revoke" }).click();
  await expect(page).toHaveURL(/\/account\?revoked=/);
  await audit.check("/account after revoking");
  audit.expectNone();
});

test("signed in: the pages whose header changes", async ({ page }) => {
  test.setTimeout(120_000);
  const audit = new Audit(page);
  await signInFromLoginPage(page, "edsger@example.com");
  for (const path of ["/", "/docs", DOC_PATHS[0]!, "/map", "/members/ada-lovelace"]) await audit.visit(path, `${path} (signed in)`);
  audit.expectNone();
});

test("issue 53's states at desktop and phone widths: its docs, the sign-in warning, the context lines and report button, the verified-only page, the confirmation code, the report's result, both settings", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const audit = new Audit(page);
  /** Audits the page as it is, at a desktop width and at a phone's. */
  const atBothWidths = async (label: string) => {
    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForLoadState("networkidle");
      await audit.check(`${label} (${width} px)`);
    }
  };

  // The risk assessment's wide table and the developers' page, on a phone too.
  for (const path of ["/docs/approval-safety", "/docs/confirmation-codes"]) {
    await page.goto(`${baseUrl()}${path}`);
    await atBothWidths(path);
  }
  const email = addMember("a11y");
  const elsewhere = await registerFromOtherAddress(email, "Audit Agent Elsewhere");
  await page.goto(elsewhere.claim.verification_uri);
  await expect(page.getByTestId("phishing-warning")).toBeVisible();
  await atBothWidths("/login from a verification link");

  await signInFromLoginPage(page, email);
  await chooseSettings(page, { verifiedOnly: true, confirm: true });
  await atBothWidths("/account with both settings on");
  const unsigned = await registerFromBrowser(page, email, "Audit Agent Unsigned");
  await page.goto(unsigned.claim.verification_uri);
  await expect(page.getByRole("heading", { name: "Only verified agents may ask for access" })).toBeVisible();
  await atBothWidths("/agent/authorize, verified agents only");

  await chooseSettings(page, { verifiedOnly: false, confirm: true });
  await page.goto(elsewhere.claim.verification_uri);
  await expect(page.getByTestId("request-network")).toHaveAttribute("data-network", "different");
  await atBothWidths("/agent/authorize with its context lines and report button");
  await page.getByRole("button", { name: "I didn't start this", exact: true }).click();
  await expect(page).toHaveURL(/result=reported$/);
  await atBothWidths("/agent/authorize/done after a report");

  const confirming = await registerFromBrowser(page, email, "Audit Agent Confirming");
  await page.goto(confirming.claim.verification_uri);
  await page.getByLabel("Code").fill(confirming.claim.user_code);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("confirmation-code")).toBeVisible();
  await atBothWidths("/agent/authorize showing the confirmation code");
  audit.expectNone();
});
