// Issue 15, bad input on MCP 2026-07-28: the SEP-2243 headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name)
// and the per-request envelope, fuzzed with fast-check (full-range strings, lone surrogates, type confusion).
// Every answer is the protocol's own JSON-RPC error or a result, never a 500, and a tool runs (writes) only
// when every header agrees with the body.
import fc from "fast-check";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { configureFile } from "../support/config";
import type { McpServer } from "@modelcontextprotocol/server";
import { apiRequest, webResponse } from "../support/api";

beforeAll(() => {
  configureFile({ BASE_URL: "https://gate.example.com" });
});

const MODERN = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };
/** The JSON-RPC codes a 2026-07-28 answer may carry for bad input (never -32603, the internal error). */
const PROTOCOL_CODES = [-32700, -32600, -32601, -32602, -32000, -32020, -32021, -32022];

/** Header values as a client can send them: visible Latin-1 (Headers takes nothing else), spaces inside. */
const headerValue = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

/** A probe server whose one tool records each run: a run stands for a write. */
async function probeServer(runs: string[]): Promise<McpServer> {
  const { McpServer } = await import("@modelcontextprotocol/server");
  const { statelessServerOptions } = await import("@/lib/mcp/http");
  const server = new McpServer({ name: "probe", version: "1.0.0" }, statelessServerOptions("probe"));
  server.registerTool("write_probe", { description: "records a write", inputSchema: z.object({ value: z.string() }) }, ({ value }) => {
    runs.push(value);
    return { content: [{ type: "text", text: "written" }] };
  });
  return server;
}

async function post(build: () => McpServer | Promise<McpServer>, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  const { serveMcp } = await import("@/lib/mcp/http");
  const server = await build();
  const request = new Request("https://gate.example.com/mcp", {
    method: "POST",
    headers: { host: "gate.example.com", "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
  const response = webResponse(await serveMcp(apiRequest(request), () => server));
  return { status: response.status, text: await response.text() };
}

function expectProtocolAnswer(answer: { status: number; text: string }): { error?: { code: number } } {
  expect(answer.status).not.toBe(500);
  expect([200, 202, 400, 404]).toContain(answer.status);
  if (answer.status === 202) return {};
  const body = JSON.parse(answer.text) as { jsonrpc: string; error?: { code: number; message: string } };
  expect(body.jsonrpc).toBe("2.0");
  if (body.error) expect(PROTOCOL_CODES).toContain(body.error.code);
  if (answer.status >= 400) expect(body.error).toBeDefined();
  return body;
}

describe("MCP 2026-07-28 standard headers", () => {
  it("a tool runs only when MCP-Protocol-Version, Mcp-Method and Mcp-Name all agree with the body; otherwise -32020/-32022/-32602, HTTP 400", async () => {
    const choice = (correct: string) => fc.oneof(fc.constant<string | undefined>(correct), fc.constant<string | undefined>(undefined), headerValue);
    await fc.assert(
      fc.asyncProperty(choice(MODERN), choice("tools/call"), choice("write_probe"), async (version, method, name) => {
        const runs: string[] = [];
        const headers: Record<string, string> = {};
        if (version !== undefined) headers["mcp-protocol-version"] = version;
        if (method !== undefined) headers["mcp-method"] = method;
        if (name !== undefined) headers["mcp-name"] = name;
        const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "write_probe", arguments: { value: "x" }, _meta: ENVELOPE } });
        const answer = expectProtocolAnswer(await post(() => probeServer(runs), headers, body));
        // Headers arrive trimmed of surrounding spaces (HTTP optional whitespace).
        const agrees = version?.trim() === MODERN && method?.trim() === "tools/call" && name?.trim() === "write_probe";
        if (agrees) {
          expect(answer.error).toBeUndefined();
          expect(runs).toEqual(["x"]);
        } else {
          expect([-32020, -32022, -32602]).toContain(answer.error?.code);
          expect(runs).toEqual([]);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("MCP 2026-07-28 envelope and methods", () => {
  const anyString = fc.string({ unit: "binary", maxLength: 30 });
  const envelope = fc.oneof(
    fc.constant<unknown>(ENVELOPE),
    fc.jsonValue(),
    fc.record({ "io.modelcontextprotocol/protocolVersion": fc.oneof(anyString, fc.jsonValue()), "io.modelcontextprotocol/clientCapabilities": fc.jsonValue() }),
  );
  const method = fc.oneof(
    fc.constantFrom("tools/call", "tools/list", "server/discover", "resources/read", "resources/list", "completion/complete", "initialize", "ping"),
    anyString,
  );

  it("full-range strings, lone surrogates and wrong types in method, params and _meta get protocol errors, never a 500; nothing runs without a valid envelope", async () => {
    await fc.assert(
      fc.asyncProperty(method, envelope, fc.jsonValue(), async (rpcMethod, meta, args) => {
        const runs: string[] = [];
        const headerSafe = /^[\x21-\x7e]{1,60}$/.test(rpcMethod) ? rpcMethod : "tools/call";
        const params = { name: "write_probe", arguments: args, _meta: meta };
        const answer = expectProtocolAnswer(
          await post(
            () => probeServer(runs),
            { "mcp-protocol-version": MODERN, "mcp-method": headerSafe, "mcp-name": "write_probe" },
            JSON.stringify({ jsonrpc: "2.0", id: 3, method: rpcMethod, params }),
          ),
        );
        if (runs.length > 0) {
          expect(meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": MODERN });
          expect(answer.error).toBeUndefined();
        }
      }),
      { numRuns: 150 },
    );
  });

  it("resources/read and completion/complete on /mcp/docs take any URI or value: a result or -32602, never a 500", async () => {
    const { buildDocsMcpServer } = await import("@/lib/mcp/docs");
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyString, fc.webUrl(), fc.jsonValue()), fc.oneof(anyString, fc.jsonValue()), async (uri, value) => {
        const read = expectProtocolAnswer(
          await post(
            buildDocsMcpServer,
            { "mcp-protocol-version": MODERN, "mcp-method": "resources/read", ...(typeof uri === "string" && /^[\x20-\x7e]*$/.test(uri) && { "mcp-name": uri }) },
            JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri, _meta: ENVELOPE } }),
          ),
        );
        if (read.error) expect([-32602, -32020]).toContain(read.error.code);
        const ref = { type: "ref/resource", uri: "https://gate.example.com/docs/{slug}.md" };
        const complete = expectProtocolAnswer(
          await post(
            buildDocsMcpServer,
            { "mcp-protocol-version": MODERN, "mcp-method": "completion/complete" },
            JSON.stringify({ jsonrpc: "2.0", id: 2, method: "completion/complete", params: { ref, argument: { name: "slug", value }, _meta: ENVELOPE } }),
          ),
        );
        if (complete.error) expect(complete.error.code).toBe(-32602);
      }),
      { numRuns: 100 },
    );
  });
});
