// Issue 13: MCP answers in our own words. A tool failure is a tool error (ToolError's text, "temporarily
// unavailable" for an unreachable database, "the service failed" otherwise, the detail only in the log); a
// failure outside any tool is a JSON-RPC error; an empty batch is an Invalid Request.
import type { McpServer } from "@modelcontextprotocol/server";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { configureFile } from "../support/config";
import { captureLog } from "../support/log";
import { apiRequest, webResponse } from "../support/api";

beforeAll(() => {
  configureFile({ BASE_URL: "https://gate.example.com" });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };
const post = (body: string): Request => new Request("https://gate.example.com/mcp", { method: "POST", headers: MCP_HEADERS, body });

describe("toolFailureMessage", () => {
  it("keeps a ToolError's text, and never passes an exception's own text on", async () => {
    const { ToolError, toolFailureMessage } = await import("@/lib/tools");
    const { TOOL_FAILED_MESSAGE, TOOL_UNAVAILABLE_MESSAGE } = await import("@/lib/http/errors");
    const log = captureLog();
    expect(toolFailureMessage("register_agent", new ToolError("Rate limited: retry in 5 seconds.", 5))).toBe("Rate limited: retry in 5 seconds.");
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    expect(toolFailureMessage("lookup_member", refused)).toBe(TOOL_UNAVAILABLE_MESSAGE);
    expect(TOOL_UNAVAILABLE_MESSAGE).toMatch(/^Temporarily unavailable: .*retry after 5 seconds\.$/);
    const prisma = new Error("Invalid `prisma.certificate.findUnique()` invocation in /work/lib/tools/verify-certificate.ts:30:5 JSON Error");
    expect(toolFailureMessage("verify_certificate", prisma)).toBe(TOOL_FAILED_MESSAGE);
    // The log keeps the detail, one JSON line each.
    const errors = log.linesOf("error");
    log.restore();
    expect(errors.map((line) => line.context)).toEqual(["tool lookup_member", "tool verify_certificate"]);
    expect(String(errors[1]!.stack)).toContain("prisma.certificate.findUnique");
  });
});

describe("serveMcp", () => {
  const failing = (error: unknown) => (): McpServer => ({ connect: async () => Promise.reject(error), close: async () => undefined }) as unknown as McpServer;

  it("answers an unreachable database outside any tool with JSON-RPC -32011, HTTP 503 and Retry-After", async () => {
    const { serveMcp } = await import("@/lib/mcp/http");
    const res = webResponse(await serveMcp(apiRequest(post("{}")), failing(Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" }))));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32011, message: "Temporarily unavailable: retry after 5 seconds.", data: { retry_after: 5 } } });
  });

  it("answers any other failure with JSON-RPC -32603 in our own words", async () => {
    const { serveMcp } = await import("@/lib/mcp/http");
    const log = captureLog();
    const res = webResponse(await serveMcp(apiRequest(post("{}")), failing(new Error("boom in /work/lib/x.ts"))));
    log.restore();
    expect(log.linesOf("error")).toEqual([expect.objectContaining({ context: "mcp request", stack: expect.stringContaining("boom in /work/lib/x.ts") })]);
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error: the service failed to handle this request." } });
    expect(body).not.toContain("boom");
  });

  it("answers params of the wrong shape for a spec method with -32602 on 2026-07-28, naming each problem; 2025 keeps the SDK's -32603", async () => {
    const { serveMcp } = await import("@/lib/mcp/http");
    const { buildDocsMcpServer } = await import("@/lib/mcp/docs");
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const ref = { type: "ref/resource", uri: "https://gate.example.com/docs/{slug}.md" };
    const cases: [string, Record<string, unknown>, string][] = [
      ["resources/read", { uri: 5 }, "Invalid params: params.uri: Invalid input: expected string, received number"],
      [
        "completion/complete",
        { ref, argument: { name: 7, value: [1] } },
        "Invalid params: params.argument.name: Invalid input: expected string, received number; params.argument.value: Invalid input: expected string, received array",
      ],
      ["completion/complete", { ref: 3 }, "Invalid params: params.ref: Invalid input; params.argument: Invalid input: expected object, received undefined"],
      ["tools/list", { cursor: 5 }, "Invalid params: params.cursor: Invalid input: expected string, received number"],
    ];
    for (const [method, params, message] of cases) {
      const modern = new Request("https://gate.example.com/mcp/docs", {
        method: "POST",
        headers: { ...MCP_HEADERS, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method },
        body: JSON.stringify({ jsonrpc: "2.0", id: 3, method, params: { ...params, _meta: envelope } }),
      });
      const res = webResponse(await serveMcp(apiRequest(modern), buildDocsMcpServer));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32602, message } });
      const legacy = webResponse(await serveMcp(apiRequest(post(JSON.stringify({ jsonrpc: "2.0", id: 4, method, params }))), buildDocsMcpServer));
      expect(((await legacy.json()) as { error?: { code?: number } }).error?.code).toBe(-32603);
    }
  });

  it("answers an empty batch with one Invalid Request (-32600)", async () => {
    const { serveMcp } = await import("@/lib/mcp/http");
    const { buildDocsMcpServer } = await import("@/lib/mcp/docs");
    for (const res of [webResponse(await serveMcp(apiRequest(post("[]")), buildDocsMcpServer))]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: an empty batch holds no message." } });
    }
    const notification = await serveMcp(apiRequest(post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))), buildDocsMcpServer);
    expect(notification.status).toBe(202);
  });
});
