// /api/map/search answers only the /map page's own same-origin fetches; robots.txt keeps crawlers out. It is
// public data read like the other public surfaces (issue 41 item 8): pages of 50 behind a cursor, and a
// per-caller budget of 10 pages a minute, checked on a server of its own (TRUSTED_PROXY=1: each case its own caller).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freshIp, startAuthServer, useServerDatabase } from "../support/agent-auth";
import type { TestServer } from "../support/server";

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

describe("/api/map/search pages and budget (a server of its own)", () => {
  let server: TestServer;
  const ADDED = 60; // with the six demo members: 66 on the map, two pages of 50 and one of 16
  const sameOrigin = (ip: string) => ({ "Sec-Fetch-Site": "same-origin", "X-Forwarded-For": ip });
  type Page = { members: Array<{ slug: string }>; next_cursor: string | null };

  beforeAll(async () => {
    server = await startAuthServer();
    useServerDatabase(server.databaseUrl);
    const { getDb } = await import("@/lib/db/prisma");
    const tag = randomBytes(4).toString("hex");
    await getDb().member.createMany({
      data: Array.from({ length: ADDED }, (_, i) => ({
        email: `map-${tag}-${i}@example.com`,
        passwordHash: "not-a-password-hash",
        displayName: `Map Member ${i}`,
        displayNameKey: `map member ${i}`,
        slug: `map-member-${tag}-${String(i).padStart(2, "0")}`,
        publicProfile: true,
        city: "Lyon",
        country: "France",
        latitude: 45.76,
        longitude: 4.84,
      })),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers at most 50 members a page, and the cursor walks every mapped member once, in order", async () => {
    const ip = freshIp();
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const query: string = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
      const res = await fetch(`${server.baseUrl}/api/map/search${query}`, { headers: sameOrigin(ip) });
      expect(res.status).toBe(200);
      const page = (await res.json()) as Page;
      sizes.push(page.members.length);
      seen.push(...page.members.map((m) => m.slug));
      cursor = page.next_cursor;
    } while (cursor !== null && sizes.length < 5);
    expect(sizes).toEqual([50, 16]);
    expect(new Set(seen).size).toBe(ADDED + 6);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toContain("ada-lovelace");
    // A cursor that is not one of ours is bad input.
    const bad = await fetch(`${server.baseUrl}/api/map/search?cursor=${encodeURIComponent("' OR 1=1 --")}`, { headers: sameOrigin(ip) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "invalid_request", error_description: expect.any(String) });
  });

  it("ten pages a minute per caller; the eleventh is the CONTRACT.md rate_limited body with Retry-After, and another caller is not affected", async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await fetch(`${server.baseUrl}/api/map/search`, { headers: sameOrigin(ip) })).status).toBe(200);
    const refused = await fetch(`${server.baseUrl}/api/map/search`, { headers: sameOrigin(ip) });
    expect(refused.status).toBe(429);
    const seconds = Number(refused.headers.get("retry-after"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await refused.json()).toEqual({ error: "rate_limited", error_description: expect.any(String) });
    expect((await fetch(`${server.baseUrl}/api/map/search`, { headers: sameOrigin(freshIp()) })).status).toBe(200);
  });
});
