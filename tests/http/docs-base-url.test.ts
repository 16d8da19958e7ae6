// Issue 42, item 4: the published docs name the deployment that serves them. With BASE_URL set (the shared
// server's), no served page, markdown twin, /auth.md or docs-MCP answer names the example host or a bare
// placeholder, and every document whose source has an example names BASE_URL.
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../support/databases";

const base = inject("baseUrl");
const EXAMPLE_HOST = "gate.example.com";
const CONTENT = path.join(ROOT, "content", "docs");
/** Slugs whose source holds an example URL (a `{{BASE_URL}}` placeholder): their served forms must name BASE_URL. */
const WITH_EXAMPLES = fs
  .readdirSync(CONTENT)
  .map((f) => fs.readFileSync(path.join(CONTENT, f), "utf8"))
  .filter((source) => source.includes("{{BASE_URL}}"))
  .map((source) => /^slug:\s*"?([a-z0-9-]+)"?/m.exec(source)![1]!);

function wrongHosts(text: string): string[] {
  return [EXAMPLE_HOST, "{{BASE_URL}}", "{{BASE_HOST}}"].filter((needle) => text.includes(needle));
}

async function get(url: string, accept: string): Promise<string> {
  const res = await fetch(url, { headers: { Accept: accept }, signal: AbortSignal.timeout(20_000) });
  expect(res.status, url).toBe(200);
  return res.text();
}

describe("the served docs name the server's BASE_URL", () => {
  it("has documents with examples to check", () => {
    expect(WITH_EXAMPLES.length).toBeGreaterThanOrEqual(10);
    expect(WITH_EXAMPLES).toContain("service-auth");
  });

  it("every page of the sitemap (HTML and markdown for Accept: text/markdown), every twin it lists, and /auth.md", { timeout: 120_000 }, async () => {
    const sitemap = await get(`${base}/sitemap.xml`, "application/xml");
    const urls = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    expect(urls).toContain(`${base}/auth.md`);
    expect(urls.filter((u) => !u.endsWith(".md")).length).toBeGreaterThan(WITH_EXAMPLES.length);
    const problems: string[] = [];
    for (const url of urls) {
      expect(url.startsWith(base), url).toBe(true);
      const forms: [string, string][] = url.endsWith(".md")
        ? [["twin", await get(url, "*/*")]]
        : [
            ["HTML", await get(url, "text/html")],
            ["markdown", await get(url, "text/markdown")],
          ];
      for (const [form, text] of forms) for (const wrong of wrongHosts(text)) problems.push(`${url} (${form}) names ${wrong}`);
      const slug = /\/docs\/([a-z0-9-]+)(?:\.md)?$/.exec(url)?.[1];
      if (slug && WITH_EXAMPLES.includes(slug)) for (const [form, text] of forms) if (!text.includes(base)) problems.push(`${url} (${form}) does not name ${base}`);
    }
    const auth = await get(`${base}/auth.md`, "text/markdown");
    if (!auth.includes(`curl -s ${base}/.well-known/oauth-protected-resource/api`)) problems.push(`/auth.md's first command does not name ${base}`);
    expect(problems).toEqual([]);
  });

  describe("the docs MCP server", () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: "docs-base-url-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/docs`)));
    });
    afterAll(async () => {
      await client?.close();
    });

    it("get_doc, resources/read and search_docs answer with BASE_URL", { timeout: 60_000 }, async () => {
      const problems: string[] = [];
      const resources: { uri: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor === undefined ? {} : { cursor });
        resources.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(resources.length).toBeGreaterThanOrEqual(WITH_EXAMPLES.length);
      for (const resource of resources) {
        const read = await client.readResource({ uri: resource.uri });
        const text = read.contents.map((c) => ("text" in c ? c.text : "")).join("\n");
        for (const wrong of wrongHosts(text)) problems.push(`resource ${resource.uri} names ${wrong}`);
      }
      for (const slug of WITH_EXAMPLES) {
        const answer = await client.callTool({ name: "get_doc", arguments: { slug } });
        const markdown = (answer.structuredContent as { markdown: string }).markdown;
        for (const wrong of wrongHosts(markdown)) problems.push(`get_doc ${slug} names ${wrong}`);
        if (!markdown.includes(base)) problems.push(`get_doc ${slug} does not name ${base}`);
      }
      const search = await client.callTool({ name: "search_docs", arguments: { query: "curl example request", limit: 10 } });
      for (const wrong of wrongHosts(JSON.stringify(search.structuredContent))) problems.push(`search_docs names ${wrong}`);
      expect(problems).toEqual([]);
    });
  });
});
