// The per-request MCP servers share one JSON Schema validator: the SDK would otherwise build an Ajv instance
// for each (a quarter of a stateless tools/call, bench/README.md).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { systemClock } from "@/lib/clock";

// The SDK keeps the validator in a private field of the low-level Server (SDK 1.32, pinned in package.json).
const validatorOf = (server: McpServer): unknown => (server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;

beforeAll(() => {
  vi.stubEnv("BASE_URL", "https://gate.example.com");
});

describe("per-request MCP servers", () => {
  it("share one validator across requests and across both servers", async () => {
    const { buildCommunityMcpServer } = await import("@/lib/mcp/community");
    const { buildDocsMcpServer } = await import("@/lib/docs/mcp");
    const context = { clock: systemClock, clientIp: "127.0.0.1" };
    const first = validatorOf(buildCommunityMcpServer(context));
    expect(first).toBeDefined();
    expect(validatorOf(buildCommunityMcpServer(context))).toBe(first);
    expect(validatorOf(buildDocsMcpServer())).toBe(first);
  });
});
