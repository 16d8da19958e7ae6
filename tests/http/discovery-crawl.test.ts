// Starting from the base URL alone, every supported surface is reachable through the catalogs, cards,
// indexes and sitemap, with no dead link, in both release modes; private mode links nothing authorization-related.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crawl, EXPECTED_NON_200, type CrawlResult } from "../support/crawler";
import { startServer, type TestServer } from "../support/server";

const ENTRY_POINTS = [
  "/",
  "/robots.txt",
  "/sitemap.xml",
  "/.well-known/api-catalog",
  "/.well-known/agent-skills/index.json",
  "/.well-known/mcp/catalog.json",
  "/.well-known/agent-card.json",
  "/.well-known/oauth-protected-resource",
];
const SURFACES = ["/openapi.json", "/mcp", "/mcp/docs", "/a2a", "/.well-known/mcp", "/.well-known/mcp-docs/server-card.json", "/docs", "/docs/getting-started", "/map"];
const AUTHORIZATION_DOCUMENTS = ["/.well-known/oauth-protected-resource/api", "/.well-known/oauth-authorization-server", "/.well-known/jwks.json", "/auth.md"];

function deadLinks(base: string, result: CrawlResult): string[] {
  return [...result.statuses]
    .filter(([url, status]) => status !== (EXPECTED_NON_200[new URL(url).pathname] ?? 200))
    .map(([url, status]) => `${status} ${url.replace(base, "")} (linked from ${result.foundOn.get(url)?.replace(base, "")})`);
}

for (const mode of ["public", "private"] as const) {
  describe(`discovery crawl in ${mode} release mode`, () => {
    let server: TestServer;
    let result: CrawlResult;
    beforeAll(async () => {
      server = await startServer({ env: { RELEASE_MODE: mode }, label: `crawl-${mode}` });
      result = await crawl(server.baseUrl, ENTRY_POINTS);
    }, 180_000);
    afterAll(() => server.stop());

    it("finds no dead link", () => {
      expect(result.statuses.size).toBeGreaterThan(40);
      expect(deadLinks(server.baseUrl, result)).toEqual([]);
    });

    it("reaches every supported surface", () => {
      const reached = [...result.statuses.keys()].map((u) => new URL(u).pathname);
      for (const path of SURFACES) expect(reached, path).toContain(path);
      if (mode === "public") for (const path of AUTHORIZATION_DOCUMENTS) expect(reached, path).toContain(path);
    });

    it("never links the unsupported map plumbing", () => {
      expect([...result.statuses.keys()].some((u) => u.includes("/api/map/search"))).toBe(false);
    });

    if (mode === "private") {
      it("links nothing authorization-related from any catalog, card, index, sitemap or page", () => {
        const offenders = [...result.bodies].filter(([, body]) =>
          AUTHORIZATION_DOCUMENTS.some((p) => body.includes(`${server.baseUrl}${p}`) || body.includes(`"${p}"`) || body.includes(`(${p})`)),
        );
        expect(offenders.map(([url]) => url)).toEqual([]);
        for (const path of AUTHORIZATION_DOCUMENTS) expect([...result.statuses.keys()].map((u) => new URL(u).pathname)).not.toContain(path);
      });
    }
  });
}
