// MCP 2026-07-28 beside the 2025 revisions on /mcp and /mcp/docs (issue 15): the v2 client in `auto`
// negotiation gets 2026-07-28 and the same tools and answers as a 2025 client; in its default `legacy` mode it
// still gets 2025-11-25; the docs are resources (paginated list, template by slug, slug completions); the
// SEP-2243 header checks answer their exact errors; batches are refused as the revision says.
import { Client as ClientV2, ProtocolError, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const base = inject("baseUrl");
const MODERN = "2026-07-28";

async function connectV2(path: string, mode: "auto" | "legacy"): Promise<{ client: ClientV2; transport: TransportV2 }> {
  const client = new ClientV2({ name: "agent-gate-tests-v2", version: "1.0.0" }, mode === "auto" ? { versionNegotiation: { mode: "auto" } } : undefined);
  const transport = new TransportV2(new URL(`${base}${path}`));
  await client.connect(transport);
  return { client, transport };
}

async function connectV1(path: string): Promise<ClientV1> {
  const client = new ClientV1({ name: "agent-gate-tests-v1", version: "1.0.0" });
  await client.connect(new TransportV1(new URL(`${base}${path}`)));
  return client;
}

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

interface RawAnswer {
  status: number;
  headers: Headers;
  body: { jsonrpc: string; id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/** One 2026-07-28 POST with the standard headers, each overridable (null drops it). */
async function modern(
  path: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | null> = {},
  envelope: unknown = ENVELOPE,
): Promise<RawAnswer> {
  const name = method === "tools/call" ? params["name"] : method === "resources/read" ? params["uri"] : undefined;
  const all: Record<string, string | null> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": method,
    ...(typeof name === "string" && { "Mcp-Name": name }),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== null));
  const res = await fetch(`${base}${path}`, { method: "POST", headers: sent, body: JSON.stringify({ jsonrpc: "2.0", id: 41, method, params: { ...params, _meta: envelope } }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as RawAnswer["body"] };
}

describe("the v2 client (@modelcontextprotocol/client 2.4)", () => {
  for (const path of ["/mcp", "/mcp/docs"]) {
    it(`${path}: 'auto' negotiation gets 2026-07-28, the default 'legacy' mode 2025-11-25, and both list the same tools as a 2025 client`, async () => {
      const auto = await connectV2(path, "auto");
      const legacy = await connectV2(path, "legacy");
      const v1 = await connectV1(path);
      try {
        expect(auto.transport.protocolVersion).toBe(MODERN);
        expect(legacy.transport.protocolVersion).toBe("2025-11-25");
        const [modernTools, legacyTools, v1Tools] = await Promise.all([auto.client.listTools(), legacy.client.listTools(), v1.listTools()]);
        const shape = (tools: { name: string }[]) => [...tools].sort((a, b) => a.name.localeCompare(b.name));
        expect(shape(modernTools.tools)).toEqual(shape(v1Tools.tools));
        expect(shape(legacyTools.tools)).toEqual(shape(v1Tools.tools));
        expect(auto.client.getServerVersion()?.name).toBe(path === "/mcp" ? "agent-gate-community" : "agent-gate-docs");
      } finally {
        await Promise.all([auto.client.close(), legacy.client.close(), v1.close()]);
      }
    });
  }

  it("/mcp: tools/call answers the same on 2026-07-28 as on 2025-11-25", async () => {
    const auto = await connectV2("/mcp", "auto");
    const v1 = await connectV1("/mcp");
    try {
      for (const call of [
        { name: "lookup_member", arguments: { name_or_slug: "SOFÍA RAMÍREZ" } },
        { name: "lookup_member", arguments: { name_or_slug: "Ada" } },
        { name: "verify_certificate", arguments: { certificate_id: "AG-2024-0099" } },
        { name: "lookup_member", arguments: { name_or_slug: 42 } },
      ]) {
        const [modernResult, legacyResult] = await Promise.all([auto.client.callTool(call), v1.callTool(call)]);
        expect(modernResult.structuredContent).toEqual(legacyResult.structuredContent);
        expect(modernResult.content).toEqual(legacyResult.content);
        expect(Boolean(modernResult.isError)).toBe(Boolean(legacyResult.isError));
      }
    } finally {
      await Promise.all([auto.client.close(), v1.close()]);
    }
  });
});

describe("/mcp/docs: documents as resources", () => {
  let auto: { client: ClientV2; transport: TransportV2 };
  let v1: ClientV1;
  beforeAll(async () => {
    auto = await connectV2("/mcp/docs", "auto");
    v1 = await connectV1("/mcp/docs");
  });
  afterAll(async () => {
    await Promise.all([auto.client.close(), v1.close()]);
  });

  async function allResources(list: (cursor?: string) => Promise<{ resources: { uri: string; name: string; mimeType?: string }[]; nextCursor?: string }>) {
    const pages: { uri: string; name: string; mimeType?: string }[][] = [];
    let cursor: string | undefined;
    do {
      const page = await list(cursor);
      pages.push(page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 20);
    return pages;
  }

  it("lists every published document, a page at a time, the same on both generations", async () => {
    const modernPages = await allResources(
      async (cursor) =>
        (await modern("/mcp/docs", "resources/list", cursor === undefined ? {} : { cursor })).body.result as { resources: { uri: string; name: string }[]; nextCursor?: string },
    );
    const legacyPages = await allResources((cursor) => v1.listResources(cursor === undefined ? undefined : { cursor }));
    expect(modernPages.length).toBeGreaterThan(1);
    expect(modernPages[0]!.length).toBe(10);
    expect(legacyPages).toEqual(modernPages);
    const resources = modernPages.flat();
    // The v2 client follows the cursor itself.
    expect((await auto.client.listResources()).resources).toEqual(resources);
    expect(new Set(resources.map((r) => r.uri)).size).toBe(resources.length);
    for (const resource of resources) {
      expect(resource.mimeType).toBe("text/markdown");
      expect(resource.uri).toBe(`${base}/docs/${resource.name}.md`);
    }
    // The docs index lists every document; so does resources/list.
    const index = await (await fetch(`${base}/docs.md`)).text();
    expect(resources.map((r) => r.uri).sort()).toEqual([...index.matchAll(/\]\((http[^)]+\/docs\/[a-z0-9-]+\.md)\)/g)].map((m) => m[1]).sort());
  });

  it("reads a document: the .md twin's text, the same as get_doc", async () => {
    const uri = `${base}/docs/scopes.md`;
    const read = await auto.client.readResource({ uri });
    expect(read.contents).toEqual([{ uri, mimeType: "text/markdown", text: await (await fetch(uri)).text() }]);
    const doc = await auto.client.callTool({ name: "get_doc", arguments: { slug: "scopes" } });
    expect((doc.structuredContent as { markdown: string }).markdown).toBe((read.contents[0] as { text: string }).text);
    expect((await v1.readResource({ uri })).contents).toEqual(read.contents);
  });

  it("offers one resource template by slug, and completes slugs", async () => {
    const template = `${base}/docs/{slug}.md`;
    const { resourceTemplates } = await auto.client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ name: "doc", uriTemplate: template, mimeType: "text/markdown" })]);
    expect((await v1.listResourceTemplates()).resourceTemplates).toEqual(resourceTemplates);
    const completion = await auto.client.complete({ ref: { type: "ref/resource", uri: template }, argument: { name: "slug", value: "get" } });
    expect(completion.completion.values).toEqual(["getting-started"]);
    const all = await v1.complete({ ref: { type: "ref/resource", uri: template }, argument: { name: "slug", value: "" } });
    expect(all.completion.values).toEqual((await auto.client.listResources()).resources.map((r) => r.name));
    expect((await v1.complete({ ref: { type: "ref/resource", uri: template }, argument: { name: "slug", value: "zz" } })).completion.values).toEqual([]);
  });

  it("an unknown resource is -32602 on 2026-07-28 and -32002 on the 2025 revisions, with its uri", async () => {
    const uri = `${base}/docs/no-such-doc.md`;
    const modernError = await auto.client.readResource({ uri }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(modernError).toBeInstanceOf(ProtocolError);
    expect((modernError as ProtocolError).code).toBe(-32602);
    expect((modernError as ProtocolError).data).toEqual({ uri });
    const legacyError = await v1.readResource({ uri }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(legacyError).toBeInstanceOf(McpError);
    expect((legacyError as McpError).code).toBe(-32002);
    expect((legacyError as McpError).data).toEqual({ uri });
    for (const other of ["https://elsewhere.example/docs/scopes.md", "file:///etc/passwd"]) {
      const raw = await modern("/mcp/docs", "resources/read", { uri: other });
      expect(raw.body.error).toMatchObject({ code: -32602, data: { uri: other } });
    }
  });

  it("an invalid cursor is -32602", async () => {
    for (const cursor of ["not-ours", "ZG9jczo5OTk", ""]) {
      const raw = await modern("/mcp/docs", "resources/list", { cursor });
      expect(raw.body.error?.code).toBe(-32602);
    }
  });
});

describe("2026-07-28 over raw HTTP", () => {
  it("server/discover names the revisions and capabilities, with cache fields", async () => {
    for (const path of ["/mcp", "/mcp/docs"]) {
      const { status, body } = await modern(path, "server/discover");
      expect(status).toBe(200);
      expect(body.result).toMatchObject({ resultType: "complete", supportedVersions: expect.arrayContaining([MODERN]), capabilities: { tools: { listChanged: false } } });
      expect(body.result?.["ttlMs"]).toBe(300_000);
      expect(body.result?.["cacheScope"]).toBe("public");
    }
  });

  it("lists carry resultType and the cache fields; a tool call is never cacheable", async () => {
    const list = await modern("/mcp", "tools/list");
    expect(list.status).toBe(200);
    expect(list.body.result).toMatchObject({ resultType: "complete", ttlMs: 300_000, cacheScope: "public" });
    expect(list.headers.get("cache-control")).toBe("no-store");
    expect(list.headers.get("access-control-allow-origin")).toBe("*");
    const call = await modern("/mcp", "tools/call", { name: "get_community_stats", arguments: {} });
    expect(call.body.result).toMatchObject({ resultType: "complete", structuredContent: { member_count: expect.any(Number) } });
    expect(call.body.result).not.toHaveProperty("ttlMs");
    const docs = await modern("/mcp/docs", "resources/read", { uri: `${base}/docs/scopes.md` });
    expect(docs.body.result).toMatchObject({ resultType: "complete", ttlMs: 300_000, cacheScope: "public" });
  });

  it("a header that disagrees with the body is 400 HeaderMismatch (-32020), the request id kept", async () => {
    const cases: Record<string, string | null>[] = [
      { "MCP-Protocol-Version": "2025-11-25" },
      { "Mcp-Method": "tools/list" },
      { "Mcp-Name": "verify_certificate" },
      { "Mcp-Name": null },
    ];
    for (const headers of cases) {
      const { status, body } = await modern("/mcp", "tools/call", { name: "get_community_stats", arguments: {} }, headers);
      expect({ headers, status, code: body.error?.code, id: body.id }).toEqual({ headers, status: 400, code: -32020, id: 41 });
    }
  });

  it("an unsupported revision is 400 -32022 with data {supported, requested}", async () => {
    const envelope = { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const { status, body } = await modern("/mcp", "tools/list", {}, { "MCP-Protocol-Version": "2099-01-01" }, envelope);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: -32022, data: { supported: [MODERN], requested: "2099-01-01" } });
  });

  it("an unknown method, or one the revision removed, is 404 -32601", async () => {
    for (const method of ["frobnicate", "ping", "logging/setLevel", "prompts/list"]) {
      const { status, body } = await modern("/mcp", method);
      expect({ method, status, code: body.error?.code }).toEqual({ method, status: 404, code: -32601 });
    }
  });

  it("a batch is refused (-32600): 2026-07-28 takes one message per POST", async () => {
    const message = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } };
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list" },
      body: JSON.stringify([message, { ...message, id: 2 }]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it("subscriptions/listen is acknowledged with nothing to listen to, and the stream ends", async () => {
    const res = await fetch(`${base}/mcp/docs`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": "subscriptions/listen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"method":"notifications/subscriptions/acknowledged"');
    expect(text).toContain('"notifications":{}');
  });
});

describe("the documented 2026-07-28 examples work as written", () => {
  /** The curl examples of a document that speak 2026-07-28: their headers and body, pointed at this server. */
  function curlExamples(file: string): { headers: Record<string, string>; body: string; path: string }[] {
    const markdown = fs.readFileSync(path.join(process.cwd(), "content/docs", file), "utf8");
    return [...markdown.matchAll(/```bash\n(curl[\s\S]*?)```/g)]
      .map((m) => m[1]!.replace(/\\\n\s*/g, " ").replaceAll("{{BASE_URL}}", base))
      .filter((command) => command.includes("MCP-Protocol-Version: 2026-07-28"))
      .map((command) => ({
        path: new URL(/curl -s (\S+)/.exec(command)![1]!).pathname,
        headers: Object.fromEntries([...command.matchAll(/-H '([^:]+): ([^']*)'/g)].map((h) => [h[1]!, h[2]!])),
        body: /-d '(.*)'/.exec(command)![1]!,
      }));
  }

  it.each(["mcp-server.md", "docs-server.md"])("%s", async (file) => {
    const examples = curlExamples(file);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const res = await fetch(`${base}${example.path}`, { method: "POST", headers: example.headers, body: example.body });
      const answer = (await res.json()) as RawAnswer["body"];
      expect({ status: res.status, error: answer.error }).toEqual({ status: 200, error: undefined });
      expect(answer.result?.["resultType"]).toBe("complete");
    }
  });
});
