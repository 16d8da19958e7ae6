// The per-request MCP servers share one JSON Schema validator: the SDK would otherwise build an Ajv instance
// for each (a quarter of a stateless tools/call, bench/README.md).
import type { McpServer } from "@modelcontextprotocol/server";
import { beforeAll, describe, expect, it } from "vitest";
import { configureFile } from "../support/config";
import { systemClock } from "@/lib/clock";
import { apiRequest, webResponse } from "../support/api";

// The SDK keeps the validator in a private field of the low-level Server (SDK 2.4, pinned in package.json).
const validatorOf = (server: McpServer): unknown => (server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;

beforeAll(() => {
  configureFile({ BASE_URL: "https://gate.example.com" });
});

describe("per-request MCP servers", () => {
  it("share one validator across requests and across both servers", async () => {
    const { buildCommunityMcpServer } = await import("@/lib/mcp/community");
    const { buildDocsMcpServer } = await import("@/lib/mcp/docs");
    const context = { clock: systemClock, clientIp: "127.0.0.1" };
    const first = validatorOf(buildCommunityMcpServer(context));
    expect(first).toBeDefined();
    expect(validatorOf(buildCommunityMcpServer(context))).toBe(first);
    expect(validatorOf(buildDocsMcpServer())).toBe(first);
  });

  it("are closed only after the SDK has finished with the request: the tool's abort signal never fires", async () => {
    const { McpServer } = await import("@modelcontextprotocol/server");
    const { serveMcp, statelessServerOptions } = await import("@/lib/mcp/http");
    let signal: AbortSignal | undefined;
    let closed = false;
    const build = (): McpServer => {
      const server = new McpServer({ name: "probe", version: "1.0.0" }, statelessServerOptions("probe"));
      server.registerTool("probe", { description: "records its abort signal" }, (ctx) => {
        signal = ctx.mcpReq.signal;
        return { content: [{ type: "text", text: "ok" }] };
      });
      const close = server.close.bind(server);
      server.close = () => {
        closed = true;
        return close();
      };
      return server;
    };
    const request = new Request("https://gate.example.com/mcp", {
      method: "POST",
      headers: { host: "gate.example.com", accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "probe", arguments: {} } }),
    });
    const response = webResponse(await serveMcp(apiRequest(request), build));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "ok" }] } });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("no-store");
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
    // Closed at once, the SDK aborted the still-registered handler (a DOMException per call, bench/README.md).
    expect(signal?.aborted).toBe(false);
  });

  it("hand the SDK the message parsed once from the body", async () => {
    const { serveCommunityMcp } = await import("@/lib/mcp/community");
    const headers = { host: "gate.example.com", accept: "application/json, text/event-stream", "content-type": "application/json" };
    const message = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    const response = webResponse(await serveCommunityMcp(apiRequest(new Request("https://gate.example.com/mcp", { method: "POST", headers, body: JSON.stringify(message) }))));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(body.id).toBe(7);
    expect(body.result.tools.map((tool) => tool.name).sort()).toEqual(["get_community_stats", "lookup_member", "register_agent", "verify_certificate"]);
  });
});
