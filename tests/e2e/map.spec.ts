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
