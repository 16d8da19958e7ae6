// A stateless tools/call gets a per-request server holding only the tool it names (lib/mcp/http.ts McpReach,
// lib/mcp/community.ts): the answer must be exactly what the whole server gives, on both revisions, for every
// tool name and any arguments, and every other message must still see the whole server.
import fc from "fast-check";
import type { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { systemClock } from "@/lib/clock";
import { buildCommunityMcpServer } from "@/lib/mcp/community";
import { MODERN_MCP_REVISION, reachOf, serveMcp, type McpReach } from "@/lib/mcp/http";
import { COMMUNITY_TOOLS } from "@/lib/tools";
import { apiRequest, webResponse } from "../../support/api";
import { confusedValue, hostileString } from "../../support/hostile";

const context = { clock: systemClock, clientIp: "198.51.100.7" };
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN_MCP_REVISION,
  "io.modelcontextprotocol/clientInfo": { name: "reach-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function post(message: unknown, modern: boolean, name?: string): Request {
  const headers: Record<string, string> = { host: "localhost:3000", accept: "application/json, text/event-stream", "content-type": "application/json" };
  if (modern) Object.assign(headers, { "mcp-protocol-version": MODERN_MCP_REVISION, "mcp-method": "tools/call", ...(name === undefined ? {} : { "mcp-name": name }) });
  else headers["mcp-protocol-version"] = "2025-11-25";
  return new Request("http://localhost:3000/mcp", { method: "POST", headers, body: JSON.stringify(message) });
}

async function answer(request: Request, build: (reach: McpReach) => McpServer): Promise<{ status: number; body: string }> {
  const response = webResponse(await serveMcp(apiRequest(request), build));
  return { status: response.status, body: await response.text() };
}

describe("MCP: what one request reaches", () => {
  it("is the tool a single tools/call names, and nothing else for any other message", () => {
    expect(reachOf({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lookup_member", arguments: {} } })).toEqual({ toolName: "lookup_member" });
    expect(reachOf({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "nope" } })).toEqual({ toolName: "nope" });
    for (const message of [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 7 } },
      { jsonrpc: "2.0", id: 1, method: "tools/call" },
      [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lookup_member" } }],
      "tools/call",
      null,
    ]) {
      expect(reachOf(message)).toEqual({});
    }
  });

  it("is handed to the builder: a call's server holds its tool alone, a list's server every tool", async () => {
    const seen: McpReach[] = [];
    const build = (reach: McpReach): McpServer => {
      seen.push(reach);
      return buildCommunityMcpServer(context, reach);
    };
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_community_stats", arguments: {} } };
    expect((await answer(post(call, false), build)).status).toBe(200);
    const modernCall = { ...call, params: { ...call.params, _meta: ENVELOPE } };
    expect((await answer(post(modernCall, true, "get_community_stats"), build)).status).toBe(200);
    expect(seen).toEqual([{ toolName: "get_community_stats" }, { toolName: "get_community_stats" }]);

    // What such a server would list: only the tool it was built for; a name no tool has gets all four.
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const names = async (reach: McpReach): Promise<string[]> => {
      const { body } = await answer(post(list, false), () => buildCommunityMcpServer(context, reach));
      return (JSON.parse(body) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    };
    expect(await names({ toolName: "verify_certificate" })).toEqual(["verify_certificate"]);
    expect(await names({ toolName: "no_such_tool" })).toEqual(COMMUNITY_TOOLS.map((tool) => tool.name));
    expect(await names({})).toEqual(COMMUNITY_TOOLS.map((tool) => tool.name));
  });

  it("changes no answer: a tools/call gets the same reply from its one-tool server as from the whole server", async () => {
    // register_agent is only ever refused here (user_authorized absent or not true): an accepted call writes a
    // pre-registration, and the second of a pair would then rightly answer "already_pre_registered".
    const wellFormed = fc.oneof(
      fc.record({ name: fc.constant("lookup_member"), args: fc.record({ name_or_slug: fc.oneof(fc.constantFrom("Ada Lovelace", "sofia-ramirez", "nobody"), hostileString(30)) }) }),
      fc.record({ name: fc.constant("get_community_stats"), args: fc.constant({}) }),
      fc.record({ name: fc.constant("verify_certificate"), args: fc.record({ certificate_id: fc.oneof(fc.constantFrom("CERT-2024-0001", "CERT-0000"), hostileString(20)) }) }),
      fc.record({
        name: fc.constant("register_agent"),
        args: fc.record({ agent_name: hostileString(20), user_authorized: fc.oneof(fc.constant(false), fc.string(), fc.integer()) }),
      }),
    );
    const anyCall = fc.record({
      name: fc.oneof(fc.constantFrom(...COMMUNITY_TOOLS.map((tool) => tool.name)), fc.string({ maxLength: 20 })),
      args: fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }), confusedValue),
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(wellFormed, anyCall), fc.boolean(), async ({ name, args: argumentsValue }, modern) => {
        const params = { name, arguments: argumentsValue, ...(modern ? { _meta: ENVELOPE } : {}) };
        const message = { jsonrpc: "2.0", id: 3, method: "tools/call", params };
        const narrow = await answer(post(message, modern, name), (reach) => buildCommunityMcpServer(context, reach));
        const whole = await answer(post(message, modern, name), () => buildCommunityMcpServer(context));
        expect(narrow).toEqual(whole);
        expect(narrow.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});
