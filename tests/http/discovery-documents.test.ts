// Status, media type and CORS of every discovery path in both release modes; the OpenAPI document is valid
// 3.1 and describes every JSON read route; MCP server cards name the right endpoint, transport and tools.
import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { OPERATIONS } from "@/lib/openapi";
import { startServer, type TestServer } from "../support/server";

const base = inject("baseUrl");

const DISCOVERY: { path: string; type: string; hiddenWhenPrivate?: boolean }[] = [
  { path: "/.well-known/oauth-protected-resource/api", type: "application/json", hiddenWhenPrivate: true },
  { path: "/.well-known/oauth-authorization-server", type: "application/json", hiddenWhenPrivate: true },
  { path: "/.well-known/jwks.json", type: "application/json", hiddenWhenPrivate: true },
  { path: "/auth.md", type: "text/markdown; charset=utf-8", hiddenWhenPrivate: true },
  { path: "/.well-known/oauth-protected-resource", type: "application/json" },
  { path: "/openapi.json", type: "application/json" },
  { path: "/.well-known/api-catalog", type: 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"' },
  { path: "/.well-known/mcp", type: "application/mcp-server-card+json" },
  { path: "/.well-known/mcp/catalog.json", type: "application/json" },
  { path: "/.well-known/mcp-docs.json", type: "application/mcp-server-card+json" },
  { path: "/.well-known/mcp-docs/server-card.json", type: "application/mcp-server-card+json" },
  { path: "/mcp/server-card", type: "application/mcp-server-card+json" },
  { path: "/mcp/docs/server-card", type: "application/mcp-server-card+json" },
  { path: "/.well-known/agent-skills/index.json", type: "application/json" },
  { path: "/.well-known/agent", type: "application/json" },
  { path: "/.well-known/agent-card.json", type: "application/json" },
  { path: "/sitemap.xml", type: "application/xml; charset=utf-8" },
];

describe("every discovery path in both release modes", () => {
  let privateServer: TestServer;
  beforeAll(async () => {
    privateServer = await startServer({ env: { RELEASE_MODE: "private" }, label: "private-discovery" });
  }, 120_000);
  afterAll(() => privateServer.stop());

  for (const doc of DISCOVERY) {
    it(`${doc.path}: 200 ${doc.type}, CORS open (public)`, async () => {
      const res = await fetch(`${base}${doc.path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(doc.type);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    });
    it(`${doc.path}: ${doc.hiddenWhenPrivate ? "JSON 404" : "200"} (private)`, async () => {
      const res = await fetch(`${privateServer.baseUrl}${doc.path}`);
      if (doc.hiddenWhenPrivate) {
        expect(res.status).toBe(404);
        expect((await res.json()).error).toBe("not_found");
      } else {
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe(doc.type);
      }
    });
  }

  it.each(["/openapi.json", "/.well-known/api-catalog", "/.well-known/mcp", "/.well-known/agent-card.json", "/.well-known/agent-skills/index.json", "/api"])(
    "%s refuses other methods with the JSON 405 and Allow",
    async (p) => {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await fetch(`${base}${p}`, { method });
        expect(res.status, method).toBe(405);
        expect(res.headers.get("allow")).toBe("GET, HEAD");
        expect((await res.json()).error).toBe("method_not_allowed");
      }
    },
  );

  it("/.well-known/openid-configuration is the JSON 404 in both modes", async () => {
    for (const b of [base, privateServer.baseUrl]) {
      const res = await fetch(`${b}/.well-known/openid-configuration`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
    }
  });

  it("private mode: OpenAPI, the sitemap and the credential-free metadata mention no authorization documents", async () => {
    for (const p of ["/openapi.json", "/sitemap.xml", "/.well-known/oauth-protected-resource", "/api"]) {
      const text = await (await fetch(`${privateServer.baseUrl}${p}`)).text();
      expect(text, p).not.toMatch(/\/auth\.md|oauth-authorization-server|oauth-protected-resource\/api|jwks\.json/);
    }
  });
});

describe("/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string; servers: { url: string }[] };
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: base }]);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes the five direct JSON reads with their errors, scopes and security scheme", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/api/v1/agent/account",
      "/api/v1/agent/registrations",
      "/api/v1/batch",
      "/api/v1/sandbox/simulate",
      "/ask",
      "/healthz",
      "/metrics",
      "/readyz",
    ]);
    // Issue 52: a Bearer token, or a DPoP-bound one with its proof.
    expect(doc.paths["/api/v1/agent/account"]!.get!.security).toEqual([{ agentBearer: ["agent.account.read"] }, { agentDPoP: ["agent.account.read"] }]);
    expect(doc.paths["/api/v1/agent/registrations"]!.get!.security).toEqual([{ agentBearer: ["agent.registrations.read"] }, { agentDPoP: ["agent.registrations.read"] }]);
    expect(Object.keys(doc.paths["/api/v1/agent/account"]!.get!.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403"]));
    expect(Object.keys(doc.paths["/api/v1/batch"]!.post!.responses)).toEqual(expect.arrayContaining(["200", "400", "413", "429"]));
  });

  it("has an entry for every JSON read route in app/ (a new route fails here until it is described or classified)", () => {
    const appDir = path.resolve(__dirname, "../../app");
    const routes: string[] = [];
    const walk = (dir: string, urlPath: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(path.join(dir, entry.name), `${urlPath}/${entry.name}`);
        else if (entry.name === "route.ts") routes.push(urlPath || "/");
      }
    };
    walk(appDir, "");
    const described = new Set(OPERATIONS.map((op) => op.path));
    // Routes that are not direct JSON reads, and why.
    const notJsonReads: Record<string, string> = {
      "/agent/identity": "authorization flow, documented in /auth.md",
      "/agent/identity/claim": "authorization flow, documented in /auth.md",
      "/oauth2/token": "authorization flow (form-encoded), documented in /auth.md",
      "/oauth2/revoke": "authorization flow (form-encoded), documented in /auth.md",
      "/agent/authorize/decision": "human form POST",
      "/account/revoke": "human form POST",
      "/account/settings": "human form POST",
      "/api/auth/[...nextauth]": "member sign-in (next-auth)",
      "/api/map/search": "same-origin plumbing of /map, not a supported integration",
      "/api/[...path]": "JSON 404 for unknown API paths",
      "/api": "root document of the REST API (links only)",
      "/mcp": "MCP server, described by its server card",
      "/mcp/docs": "MCP server, described by its server card",
      "/mcp/server-card": "the server card of /mcp (draft SEP-2127 default location)",
      "/mcp/docs/server-card": "the server card of /mcp/docs (draft SEP-2127 default location)",
      "/a2a": "A2A endpoint, described by the agent card",
      "/openapi.json": "this document",
      "/auth.md": "markdown walkthrough",
      "/sitemap.xml": "sitemap",
      "/robots.txt": "crawler rules (text)",
      "/favicon.ico": "no icon (204)",
      "/page-markdown/[[...path]]": "markdown twins of pages",
      "/api/cron/janitor": "operator-only: Vercel Cron's janitor pass (CRON_SECRET)",
      "/api/cron/webhooks": "operator-only: Vercel Cron's webhook delivery pass (CRON_SECRET)",
    };
    const unclassified = routes.filter((r) => !r.startsWith("/.well-known") && !described.has(r) && !(r in notJsonReads));
    expect(unclassified).toEqual([]);
    for (const op of OPERATIONS) expect(routes, op.path).toContain(op.path);
  });
});

interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  remotes: { type: string; url: string }[];
  tools: { name: string }[];
}

const MCP_REVISIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

async function toolsList(url: string): Promise<string[]> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  const body = (await res.json()) as { result: { tools: { name: string }[] } };
  return body.result.tools.map((t) => t.name);
}

describe("MCP server cards", () => {
  it.each([
    ["/.well-known/mcp", "/mcp", "community-tools"],
    ["/.well-known/mcp-docs.json", "/mcp/docs", "docs"],
    ["/.well-known/mcp-docs/server-card.json", "/mcp/docs", "docs"],
    ["/mcp/server-card", "/mcp", "community-tools"],
    ["/mcp/docs/server-card", "/mcp/docs", "docs"],
  ])("%s names %s, streamable HTTP with the revisions it serves, and exactly the tools it serves", async (cardPath, endpoint, id) => {
    const card = (await (await fetch(`${base}${cardPath}`)).json()) as ServerCard;
    expect(card.$schema).toBe("https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json");
    expect(card.name).toBe(`localhost/${id}`);
    expect(card.remotes).toEqual([{ type: "streamable-http", url: `${base}${endpoint}`, supportedProtocolVersions: MCP_REVISIONS }]);
    expect(card.tools.map((t) => t.name)).toEqual(await toolsList(`${base}${endpoint}`));
  });

  it("the domain catalog points at both cards", async () => {
    const catalog = (await (await fetch(`${base}/.well-known/mcp/catalog.json`)).json()) as { entries: { url: string; type: string; supportedProtocolVersions: string[] }[] };
    expect(catalog.entries.map((e) => e.url)).toEqual([`${base}/.well-known/mcp`, `${base}/.well-known/mcp-docs/server-card.json`]);
    for (const entry of catalog.entries) expect(entry.supportedProtocolVersions).toEqual(MCP_REVISIONS);
  });

  it("the revisions a card lists are the ones the endpoint answers", async () => {
    const card = (await (await fetch(`${base}/mcp/docs/server-card`)).json()) as ServerCard & { capabilities: Record<string, unknown> };
    expect(card.capabilities).toEqual({ tools: { listChanged: false }, resources: { listChanged: false, subscribe: false }, completions: {} });
    for (const version of MCP_REVISIONS.filter((v) => v !== "2026-07-28")) {
      const res = await fetch(`${base}/mcp/docs`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
      expect(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe(version);
    }
  });
});

describe("operator endpoints in /openapi.json", () => {
  it("lists /healthz, /readyz and /metrics under the operations tag, and no agent catalog names them", async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, { get: { tags: string[]; security: unknown[] } }>; tags: { name: string }[] };
    for (const p of ["/healthz", "/readyz", "/metrics"]) expect(doc.paths[p]!.get.tags).toEqual(["operations"]);
    expect(doc.paths["/metrics"]!.get.security).toEqual([{ operatorBearer: [] }]);
    expect(doc.tags.map((t) => t.name)).toContain("operations");
    for (const catalog of ["/.well-known/api-catalog", "/.well-known/mcp", "/.well-known/agent-card.json", "/.well-known/agent-skills/index.json", "/api"]) {
      const text = await (await fetch(`${base}${catalog}`)).text();
      for (const p of ["/healthz", "/readyz", "/metrics", "/api/cron"]) expect(text, `${catalog} names ${p}`).not.toContain(p);
    }
  });
});
