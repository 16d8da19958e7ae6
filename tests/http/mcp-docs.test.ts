// /mcp/docs with the MCP SDK's own client (Streamable HTTP), plus the raw transport rules.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

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

  it("refuses a foreign Origin on a loopback-hosted service (DNS rebinding)", async () => {
    const res = await fetch(`${base}/mcp/docs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Origin: "http://evil.example.com" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(res.status).toBe(403);
    await res.arrayBuffer();
  });
});
