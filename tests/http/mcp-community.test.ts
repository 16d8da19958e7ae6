// /mcp against `next start`: the MCP SDK client lists and calls the four tools; raw HTTP checks; and the
// official conformance suite in server mode, its result printed in the test output.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { COMMUNITY_2025, COMMUNITY_2026, conformanceProblems, runConformance } from "../support/conformance";

const base = inject("baseUrl");

async function connect(headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "agent-gate-tests", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  return client;
}

function rawMcp(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", ...headers },
    body: JSON.stringify(body),
  });
}

describe("/mcp with the MCP SDK client", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client.close();
  });

  it("lists exactly the four tools with input and output schemas and honest annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_community_stats", "lookup_member", "register_agent", "verify_certificate"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description?.length).toBeGreaterThan(100);
      expect(tool.annotations?.openWorldHint).toBe(false);
      expect(tool.annotations?.destructiveHint).toBe(false);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ["lookup_member", "get_community_stats", "verify_certificate"]) expect(byName[name]?.annotations?.readOnlyHint).toBe(true);
    expect(byName["register_agent"]?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(byName["register_agent"]?.inputSchema.required).toEqual(expect.arrayContaining(["agent_name", "user_authorized"]));
  });

  it("lookup_member: structuredContent plus the same JSON as text", async () => {
    const result = await client.callTool({ name: "lookup_member", arguments: { name_or_slug: "SOFÍA RAMÍREZ" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      found: true,
      member: { display_name: "Sofía Ramírez", slug: "sofia-ramirez", member_since: "2025-02", profile_url: `${base}/members/sofia-ramirez` },
    });
    const content = result.content as Array<{ type: string; text?: string }>;
    expect(content[0]?.type).toBe("text");
    expect(JSON.parse(content[0]?.text ?? "")).toEqual(result.structuredContent);
    const prefix = await client.callTool({ name: "lookup_member", arguments: { name_or_slug: "Ada" } });
    expect(prefix.structuredContent).toEqual({ found: false });
  });

  it("lookup_member's profile_url resolves to the public profile page", async () => {
    const result = await client.callTool({ name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } });
    const url = (result.structuredContent as { member: { profile_url: string } }).member.profile_url;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Ada Lovelace");
    expect((await fetch(`${base}/members/pat-private`)).status).toBe(404);
  });

  it("get_community_stats", async () => {
    const result = await client.callTool({ name: "get_community_stats", arguments: {} });
    expect(result.structuredContent).toEqual({ member_count: expect.any(Number), as_of: expect.stringMatching(/Z$/), cache_max_age_seconds: 1200 });
  });

  it("verify_certificate: issued and revoked", async () => {
    const issued = await client.callTool({ name: "verify_certificate", arguments: { certificate_id: "AG-2025-0003" } });
    expect(issued.structuredContent).toMatchObject({ status: "issued", certificate: { id: "AG-2025-0003", holder_display_name: "Alan Turing" } });
    const revoked = await client.callTool({ name: "verify_certificate", arguments: { certificate_id: "AG-2024-0099" } });
    expect(revoked.structuredContent).toEqual({ status: "not_found" });
  });

  it("register_agent: refused without user_authorized, idempotent with it", async () => {
    const refused = await client.callTool({ name: "register_agent", arguments: { agent_name: "MCP Test Agent" } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/user_authorized must be true/);
    const first = await client.callTool({ name: "register_agent", arguments: { agent_name: "MCP Test Agent", user_authorized: true } });
    expect(first.structuredContent).toMatchObject({ agent_name: "MCP Test Agent", status: "pre_registered", binding: false });
    const second = await client.callTool({ name: "register_agent", arguments: { agent_name: "mcp test agent", user_authorized: true } });
    expect(second.structuredContent).toEqual({ ...(first.structuredContent as object), status: "already_pre_registered" });
  });

  it("ignores a token sent to it", async () => {
    const withToken = await connect({ Authorization: "Bearer aca_not-a-real-token" });
    const result = await withToken.callTool({ name: "lookup_member", arguments: { name_or_slug: "Grace Hopper" } });
    expect(result.structuredContent).toMatchObject({ found: true });
    await withToken.close();
  });
});

describe("/mcp over raw HTTP", () => {
  it("GET answers 405 (no SSE stream on a stateless server)", async () => {
    const res = await fetch(`${base}/mcp`, { headers: { Accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("answers JSON (never SSE), issues no session id, allows any origin", async () => {
    const res = await rawMcp({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as { result: { serverInfo: { name: string }; capabilities: Record<string, unknown> } };
    expect(body.result.serverInfo.name).toBe("agent-gate-community");
    expect(Object.keys(body.result.capabilities)).toEqual(["tools"]);
  });

  it("serves clients of the 2025-03-26 through 2025-11-25 revisions", async () => {
    for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
      const res = await rawMcp(
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
        { "MCP-Protocol-Version": version },
      );
      const body = (await res.json()) as { result: { protocolVersion: string } };
      expect(body.result.protocolVersion, version).toBe(version);
      const list = await rawMcp({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "MCP-Protocol-Version": version });
      expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(4);
    }
  });

  it("answers a preflight for cross-origin clients", async () => {
    const res = await fetch(`${base}/mcp`, { method: "OPTIONS", headers: { Origin: "https://elsewhere.example", "Access-Control-Request-Method": "POST" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("an unknown tool is an error, not a crash", async () => {
    const res = await rawMcp({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_members", arguments: {} } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { isError?: boolean }; error?: { code: number } };
    expect(body.error?.code === -32602 || body.result?.isError === true).toBe(true);
  });
});

describe("@modelcontextprotocol/conformance, server mode", () => {
  it("passes every check of the 2025-11-25 scenarios that concern what /mcp serves", { timeout: 240_000 }, async () => {
    const rows = await runConformance(`${base}/mcp`, "2025-11-25", COMMUNITY_2025);
    expect(conformanceProblems(rows, COMMUNITY_2025)).toEqual([]);
  });

  it("passes every check of the 2026-07-28 scenarios that concern what /mcp serves", { timeout: 240_000 }, async () => {
    const rows = await runConformance(`${base}/mcp`, "2026-07-28", COMMUNITY_2026);
    expect(conformanceProblems(rows, COMMUNITY_2026)).toEqual([]);
  });
});
