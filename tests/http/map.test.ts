// /api/map/search answers only the /map page's own same-origin fetches; robots.txt keeps crawlers out.
import { describe, expect, inject, it } from "vitest";

const base = inject("baseUrl");

async function expectRefused(headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${base}/api/map/search`, { headers });
  expect(res.status, JSON.stringify(headers)).toBe(403);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(await res.json()).toEqual({ error: "not_supported" });
}

describe("/api/map/search", () => {
  it("refuses a plain server-side request with 403 not_supported", async () => {
    await expectRefused({});
  });

  it("refuses cross-site, same-site and forged-origin requests", async () => {
    await expectRefused({ "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" });
    await expectRefused({ "Sec-Fetch-Site": "same-site" });
    await expectRefused({ "Sec-Fetch-Site": "none" });
    await expectRefused({ "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" });
    await expectRefused({ Origin: base });
  });

  it("serves the map page's same-origin fetch: public members with a location only", async () => {
    const variants: Array<Record<string, string>> = [{ "Sec-Fetch-Site": "same-origin" }, { "Sec-Fetch-Site": "same-origin", Origin: base }];
    for (const headers of variants) {
      const res = await fetch(`${base}/api/map/search`, { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      const body = (await res.json()) as { members: Array<Record<string, unknown>> };
      expect(body.members.map((m) => m["slug"]).sort()).toEqual(["ada-lovelace", "alan-turing", "edsger-dijkstra", "grace-hopper", "katherine-johnson", "sofia-ramirez"]);
      expect(body.members[0]).toEqual({
        slug: expect.any(String),
        display_name: expect.any(String),
        city: expect.any(String),
        country: expect.any(String),
        latitude: expect.any(Number),
        longitude: expect.any(Number),
      });
      expect(JSON.stringify(body)).not.toContain("@");
    }
  });

  it("allows only GET", async () => {
    const res = await fetch(`${base}/api/map/search`, { method: "POST", headers: { "Sec-Fetch-Site": "same-origin" } });
    expect(res.status).toBe(405);
  });
});

describe("robots.txt", () => {
  it("disallows the map plumbing and private paths, and points to the sitemap", async () => {
    const res = await fetch(`${base}/robots.txt`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const path of ["/api/map/search", "/api/", "/account", "/agent/authorize"]) expect(text).toContain(`Disallow: ${path}`);
    expect(text).toContain(`Sitemap: ${base}/sitemap.xml`);
  });
});

describe("public profile page", () => {
  it("shows a public member and 404s for a private or unknown one", async () => {
    const page = await fetch(`${base}/members/katherine-johnson`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Katherine Johnson");
    expect(html).toContain("Hampton");
    expect(html).not.toContain("katherine@example.com");
    expect((await fetch(`${base}/members/pat-private`)).status).toBe(404);
    expect((await fetch(`${base}/members/no-such-member`)).status).toBe(404);
  });
});
