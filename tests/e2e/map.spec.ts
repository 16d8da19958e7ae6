import { axeViolations } from "./support/axe";
import { baseUrl, expect, test } from "./fixtures";

test("the map shows a dot and a list entry per public member with a location, and the filter narrows both", async ({ page }) => {
  const mapData = page.waitForResponse((res) => res.url().endsWith("/api/map/search"));
  await page.goto(`${baseUrl()}/map`);
  expect((await mapData).status()).toBe(200);

  const list = page.getByRole("list", { name: "Member locations" });
  await expect(list.getByRole("listitem")).toHaveCount(6);
  await expect(page.getByTestId("map-dot")).toHaveCount(6);
  await expect(list).toContainText("Sofía Ramírez");
  await expect(list).toContainText("Madrid, Spain");
  await expect(list).not.toContainText("Pat Private");

  await page.getByLabel("Filter by name or place").fill("united kingdom");
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(page.getByTestId("map-dot")).toHaveCount(2);
  await expect(list).toContainText("Ada Lovelace");
  await expect(list).toContainText("Alan Turing");
  await expect(page.getByText("2 of 6 members match.")).toBeVisible();

  await page.getByLabel("Filter by name or place").fill("nowhere at all");
  await expect(list.getByRole("listitem")).toHaveCount(0);
  await expect(page.getByTestId("map-dot")).toHaveCount(0);

  await page.getByLabel("Filter by name or place").fill("");
  await list.getByRole("link", { name: "Grace Hopper" }).click();
  await expect(page).toHaveURL(`${baseUrl()}/members/grace-hopper`);
  await expect(page.getByRole("heading", { name: "Grace Hopper" })).toBeVisible();
  await expect(page.getByText("Member since September 2023")).toBeVisible();
});

test("a map larger than one page: the first 50 members, then the next page when the reader asks; a refused page says to wait", async ({ page }) => {
  // The server's pages, stood in for by the browser's route so the shared demo database keeps its six members.
  const member = (i: number) => ({
    slug: `member-${String(i).padStart(3, "0")}`,
    display_name: `Member ${i}`,
    city: "Lyon",
    country: "France",
    latitude: 45.76,
    longitude: 4.84,
  });
  const asked: string[] = [];
  let refuseNext = true;
  await page.route("**/api/map/search*", async (route) => {
    const cursor = new URL(route.request().url()).searchParams.get("cursor");
    asked.push(cursor ?? "");
    if (cursor === null) return route.fulfill({ json: { members: Array.from({ length: 50 }, (_, i) => member(i)), next_cursor: "member-049" } });
    if (refuseNext) {
      refuseNext = false;
      return route.fulfill({ status: 429, headers: { "retry-after": "30" }, json: { error: "rate_limited", error_description: "Too many requests." } });
    }
    return route.fulfill({ json: { members: [member(50), member(51)], next_cursor: null } });
  });
  await page.goto(`${baseUrl()}/map`);

  const list = page.getByRole("list", { name: "Member locations" });
  await expect(list.getByRole("listitem")).toHaveCount(50);
  await expect(page.getByText("50 members with a location (more to load).")).toBeVisible();
  const more = page.getByRole("button", { name: "Show more members" });
  await more.click();
  await expect(page.getByText("Too many pages in a short time: wait a minute, then try again.")).toBeVisible();
  // The button and the message pass the same WCAG 2.1 AA rules as every page (tests/e2e/accessibility.spec.ts).
  expect((await axeViolations(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  await expect(list.getByRole("listitem")).toHaveCount(50);
  await more.click();
  await expect(list.getByRole("listitem")).toHaveCount(52);
  await expect(page.getByTestId("map-dot")).toHaveCount(52);
  await expect(page.getByText("52 members with a location.")).toBeVisible();
  await expect(more).toHaveCount(0);
  expect(asked).toEqual(["", "member-049", "member-049"]);
});
