// Issue 51 item 5: one log format. What `npm start` writes from its start to its shutdown is JSON lines only, each a
// pino line with a `type` (lib/observability/log.ts): the start's own lines, what Next writes through `console`, every
// request's, a refusal written before any handler, and the shutdown's; nothing on stderr. tests/unit/one-log-format.test.ts keeps console calls out of the
// source; tests/http/start-refusals.test.ts reads a refused start's lines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ label: "log-format" });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };

describe("npm start's output", () => {
  it("is JSON log lines with a type, from the start to the shutdown, and nothing on stderr", async () => {
    const requests: [string, RequestInit?][] = [
      ["/healthz"],
      ["/ask?query=revocation"],
      ["/docs.md"],
      ["/login", { headers: { Accept: "text/html" } }],
      ["/no-such-page-at-all", { headers: { Accept: "text/html" } }],
      ["/mcp", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }],
      // Refused by the body gate before any handler runs.
      ["/oauth2/token", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `grant_type=${"x".repeat(17 * 1024)}` }],
    ];
    for (const [index, [path, init]] of requests.entries()) {
      const headers = new Headers(init?.headers);
      headers.set("X-Request-Id", `log-format-${index}`);
      await (await fetch(`${server.baseUrl}${path}`, { ...init, headers, redirect: "manual" })).arrayBuffer();
    }
    await server.stop();
    expect(server.exitCode()).toBe(0);

    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line !== "");
    const entries = lines.map((line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`a line that is not JSON: ${line}`);
      }
      expect(entry, line).toMatchObject({ level: expect.any(String), time: expect.any(String), service: "agent-gate", type: expect.any(String), msg: expect.any(String) });
      return entry;
    });
    const types = entries.map((entry) => entry.type);
    // Next's own start-up note ("Running next.config.ts took …") comes before, as a `console` line of its own.
    expect(types.indexOf("listening"), "the server says it listens before any request").toBeGreaterThanOrEqual(0);
    expect(types.indexOf("listening")).toBeLessThan(types.indexOf("request"));
    expect(entries.filter((entry) => entry.type === "request" && String(entry.request_id).startsWith("log-format-"))).toHaveLength(requests.length);
    expect(types.at(-1)).toBe("shutdown");
    expect(server.stderr()).toBe("");
  }, 120_000);
});
