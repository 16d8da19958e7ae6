// The documentation pages for people: index, a document, navigation, and a phone-sized screen.
import { baseUrl, expect, test } from "./fixtures";

test("the docs index lists documents by kind with summaries", async ({ page }) => {
  await page.goto(`${baseUrl()}/docs`);
  await expect(page.getByRole("heading", { level: 1, name: "Documentation" })).toBeVisible();
  const main = page.getByRole("article");
  for (const kind of ["Guides", "Reference", "Policies"]) {
    await expect(main.getByRole("heading", { level: 2, name: kind })).toBeVisible();
  }
  await expect(main.getByRole("listitem").filter({ hasText: "What Agent Gate is" }).getByRole("link", { name: "Getting started for agents" })).toBeVisible();
  await expect(main.getByText("What Agent Gate is, which of its surfaces to use")).toBeVisible();
});

test("a reader opens a document and moves through the docs", async ({ page }) => {
  await page.goto(`${baseUrl()}/docs`);
  await page.getByRole("article").getByRole("link", { name: "Scopes" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/docs/scopes`);
  await expect(page.getByRole("heading", { level: 1, name: "Scopes" })).toBeVisible();
  await expect(page.getByRole("table").first()).toBeVisible();

  // Previous/next links follow the reading order; the sidebar reaches any document.
  const pager = page.getByRole("navigation", { name: "Previous and next" });
  await pager.getByRole("link", { name: /→/ }).click();
  await expect(page).toHaveURL(`${baseUrl()}/docs/own-account-api`);
  await page.getByRole("navigation", { name: "All documents" }).getByRole("link", { name: "Errors" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Errors" })).toBeVisible();

  // The in-page table of contents jumps to a section.
  const toc = page.getByRole("navigation", { name: "On this page" });
  await toc.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/docs\/errors#/);

  // The markdown twin is one click away.
  const twin = await page.getByRole("link", { name: "View as markdown" }).getAttribute("href");
  expect(twin).toBe("/docs/errors.md");
  await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: "Docs" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/docs`);
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test("a document reads without sideways scrolling; the text comes before the document list", async ({ page }) => {
    await page.goto(`${baseUrl()}/docs/service-auth`);
    const heading = page.getByRole("heading", { level: 1, name: "Delegated access with service_auth" });
    await expect(heading).toBeVisible();
    const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(pageWidth).toBeLessThanOrEqual(375);
    const headingBox = await heading.boundingBox();
    const navBox = await page.getByRole("navigation", { name: "All documents" }).boundingBox();
    expect(headingBox && navBox && headingBox.y < navBox.y).toBe(true);
    // Wide code and tables scroll inside their own boxes.
    await page.getByRole("navigation", { name: "All documents" }).getByRole("link", { name: "Errors" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Errors" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});
