// /mcp/docs with the MCP SDK's own client (Streamable HTTP), the raw transport rules, the DNS-rebinding
// guard of both MCP endpoints, and the official conformance suite.
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { conformanceProblems, DOCS_2025, DOCS_2026, runConformance } from "../support/conformance";

const base = inject("baseUrl");
let client: Client;

beforeAll(async () => {
  client = new Client({ name: "docs-test-client", version: "1.0.0" });
  // A token is ignored by this anonymous server.
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/docs`), { requestInit: { headers: { Authorization: "Bearer aca_not_a_real_token" } } }));
});
afterAll(async () => {
  await client?.close();
});

describe("/mcp/docs via the MCP SDK client", () => {
  it("identifies itself and lists exactly search_docs and get_doc, read-only, with schemas", async () => {
    expect(client.getServerVersion()?.name).toBe("agent-gate-docs");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_doc", "search_docs"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(tool.description).toBeTruthy();
    }
    const search = tools.find((t) => t.name === "search_docs")!;
    expect(search.inputSchema.required).toEqual(["query"]);
  });

  it("search_docs returns structured results plus text, deterministically", async () => {
    const call = () => client.callTool({ name: "search_docs", arguments: { query: "slow_down polling interval", limit: 3 } });
    const first = await call();
    expect(first.isError).toBeFalsy();
    const structured = first.structuredContent as { results: { slug: string; title: string; url: string; snippet: string; score: number }[] };
    expect(structured.results.length).toBeGreaterThan(0);
    expect(structured.results.length).toBeLessThanOrEqual(3);
    for (const r of structured.results) {
      expect(Object.keys(r)).toEqual(["slug", "title", "url", "snippet", "score"]);
      expect(r.url).toBe(`${base}/docs/${r.slug}`);
    }
    const content = first.content as { type: string; text: string }[];
    expect(content[0]?.type).toBe("text");
    expect(JSON.parse(content[0]!.text)).toEqual(structured);
    expect(JSON.stringify((await call()).structuredContent)).toBe(JSON.stringify(structured));
  });

  it("get_doc returns a document as markdown; an unknown slug is a tool error", async () => {
    const found = await client.callTool({ name: "get_doc", arguments: { slug: "scopes" } });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ slug: "scopes", title: "Scopes", url: `${base}/docs/scopes` });
    expect((found.structuredContent as { markdown: string }).markdown).toMatch(/^# Scopes/);
    const twin = await (await fetch(`${base}/docs/scopes.md`)).text();
    expect((found.structuredContent as { markdown: string }).markdown).toBe(twin);

    const missing = await client.callTool({ name: "get_doc", arguments: { slug: "no-such-doc" } });
    expect(missing.isError).toBe(true);
    expect((missing.content as { text: string }[])[0]!.text).toMatch(/No published document/);
  });

  it("search_docs takes a question of 500 characters (emoji count once, as /ask counts them) and refuses 501 as bad arguments", async () => {
    const emoji = "\u{1f600}";
    const longest = await client.callTool({ name: "search_docs", arguments: { query: emoji.repeat(500) } });
    expect(longest.isError).toBeFalsy();
    expect(longest.structuredContent).toEqual({ results: [] });
    for (const query of [emoji.repeat(501), "x".repeat(501)]) {
      const refused = await client.callTool({ name: "search_docs", arguments: { query } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toMatch(/at most 500 characters/);
    }
  });

  it("a question's words past the first 32 search terms are not searched", async () => {
    const filler = Array.from({ length: 32 }, (_, i) => `zq${i}`).join(" ");
    const within = await client.callTool({ name: "search_docs", arguments: { query: `${filler.slice(0, filler.lastIndexOf(" "))} revoke` } });
    expect((within.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    const past = await client.callTool({ name: "search_docs", arguments: { query: `${filler} revoke` } });
    expect(past.structuredContent).toEqual({ results: [] });
  });

  it("bad arguments are a tool error, not a crash", async () => {
    const result = await client.callTool({ name: "search_docs", arguments: { query: "", limit: 1000 } });
    expect(result.isError).toBe(true);
  });
});

describe("/mcp/docs transport", () => {
  it("GET is 405 (no SSE stream on a stateless server)", async () => {
    const res = await fetch(`${base}/mcp/docs`, { headers: { Accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    await res.arrayBuffer();
  });

  it("answers JSON, issues no session id, allows any origin", async () => {
    const res = await fetch(`${base}/mcp/docs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as { result: { protocolVersion: string; capabilities: Record<string, unknown> } };
    expect(body.result.protocolVersion).toBe("2025-03-26");
    expect(body.result.capabilities.tools).toBeDefined();
  });
});

/** POSTs a ping with a chosen Host header (fetch always sends the URL's own host). */
function pingWithHost(path: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(`${base}${path}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  });
}

describe("DNS-rebinding guard on both MCP endpoints (BASE_URL is loopback)", () => {
  for (const path of ["/mcp", "/mcp/docs"]) {
    it(`${path}: refuses a foreign Host, lets a cross-origin caller with our Host through`, async () => {
      const ours = new URL(base).host;
      expect(await pingWithHost(path, { Host: "evil.example.com", Origin: "http://evil.example.com" })).toBe(403);
      expect(await pingWithHost(path, { Host: "evil.example.com" })).toBe(403);
      expect(await pingWithHost(path, { Host: ours, Origin: "http://evil.example.com" })).toBe(200);
      expect(await pingWithHost(path, { Host: ours })).toBe(200);
    });
  }
});

// The official MCP conformance suite (server mode), for each revision's requirement set; /mcp runs it in mcp-community.test.ts.
it("/mcp/docs passes every applicable check of the MCP conformance suite (2025-11-25 requirements)", { timeout: 240_000 }, async () => {
  const rows = await runConformance(`${base}/mcp/docs`, "2025-11-25", DOCS_2025);
  expect(conformanceProblems(rows, DOCS_2025)).toEqual([]);
});

it("/mcp/docs passes every applicable check of the MCP conformance suite (2026-07-28 requirements)", { timeout: 240_000 }, async () => {
  const rows = await runConformance(`${base}/mcp/docs`, "2026-07-28", DOCS_2026);
  expect(conformanceProblems(rows, DOCS_2026)).toEqual([]);
});
