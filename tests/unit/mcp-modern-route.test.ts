// The shortcut that routes the common 2026-07-28 message without the SDK's full classification
// (lib/mcp/http.ts isEnvelopedRequest) must route exactly as the classification does: whenever it says
// "modern", classifyInboundRequest says modern or rejects with an envelope or header error (which the modern
// entry answers), never "legacy" nor a JSON-RPC shape error (which the 2025 transport answers).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyInboundRequest } from "@modelcontextprotocol/server";
import { isEnvelopedRequest } from "@/lib/mcp/http";

const MODERN = "2026-07-28";
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

function routedModernByTheSdk(body: unknown, header?: string): boolean {
  const outcome = classifyInboundRequest({ httpMethod: "POST", protocolVersionHeader: header, body });
  if (outcome.kind === "reject") return outcome.rung !== "jsonrpc-shape";
  return outcome.kind === "modern";
}

/** Bodies near the shortcut's edge: JSON-RPC requests, responses and notifications, with and without the envelope claim. */
const versionClaim = fc.oneof(fc.constant(MODERN), fc.constant("2025-11-25"), fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null));
const meta = fc.oneof(
  fc.record({ [VERSION_KEY]: versionClaim }, { requiredKeys: [] }),
  fc.record({ [VERSION_KEY]: versionClaim, "io.modelcontextprotocol/clientCapabilities": fc.oneof(fc.constant({}), fc.integer()) }),
  fc.anything({ maxDepth: 1 }),
);
const params = fc.oneof(fc.record({ _meta: meta, name: fc.string({ maxLength: 8 }) }, { requiredKeys: [] }), fc.anything({ maxDepth: 1 }));
const id = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.double(), fc.constant(null), fc.constant({}));
const method = fc.oneof(fc.constantFrom("tools/call", "tools/list", "initialize", "server/discover", "notifications/initialized"), fc.string({ maxLength: 10 }), fc.integer());
const body = fc.oneof(
  fc.record({ jsonrpc: fc.constantFrom("2.0", "1.0"), id, method, params }, { requiredKeys: ["method"] }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, method, params, result: fc.anything({ maxDepth: 1 }) }, { requiredKeys: ["result"] }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, method, params, error: fc.record({ code: fc.integer(), message: fc.string() }) }, { requiredKeys: ["error"] }),
  fc.array(fc.record({ jsonrpc: fc.constant("2.0"), id, method, params })),
  fc.anything({ maxDepth: 2 }),
);

describe("MCP: the 2026-07-28 shortcut routes as the SDK's classification", () => {
  it("takes the everyday tools/call with its envelope", () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lookup_member", arguments: {}, _meta: { [VERSION_KEY]: MODERN } } };
    expect(isEnvelopedRequest(call)).toBe(true);
    expect(routedModernByTheSdk(call)).toBe(true);
  });

  it("leaves 2025 messages, responses, batches and initialize to the classification", () => {
    const params = { _meta: { [VERSION_KEY]: MODERN } };
    expect(isEnvelopedRequest({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } })).toBe(false);
    expect(isEnvelopedRequest({ jsonrpc: "2.0", id: 1, method: "initialize", params })).toBe(false);
    expect(isEnvelopedRequest({ jsonrpc: "2.0", id: 1, method: "tools/call", params, result: {} })).toBe(false);
    expect(isEnvelopedRequest([{ jsonrpc: "2.0", id: 1, method: "tools/call", params }])).toBe(false);
    expect(isEnvelopedRequest({ jsonrpc: "2.0", method: "notifications/initialized", params })).toBe(false);
  });

  it("never says modern where the classification would route elsewhere (any body, any version header)", () => {
    fc.assert(
      fc.property(body, fc.option(fc.constantFrom(MODERN, "2025-11-25", "garbage"), { nil: undefined }), (candidate, header) => {
        if (isEnvelopedRequest(candidate)) expect(routedModernByTheSdk(candidate, header)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
