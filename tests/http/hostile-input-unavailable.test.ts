// Issue 13 with the database unreachable (nothing listens on 127.0.0.1:1), front on and off: MCP tools answer a
// "temporarily unavailable" tool error, A2A a JSON-RPC -32011 with HTTP 503 and Retry-After, batch and the token
// endpoint CONTRACT.md §2's 503; /ask needs no database. Never the driver's text (no host, no port).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshIp, rawRequest, type RawResponse } from "../support/agent-auth";
import { expectNoInternals, fieldValue, hostileString, percentEncoded } from "../support/hostile";
import { startServer, type TestServer } from "../support/server";

type Side = "front" | "next";
const servers: Partial<Record<Side, TestServer>> = {};
const SIDES: Side[] = ["front", "next"];
const baseOf = (side: Side): string => servers[side]!.baseUrl;

beforeAll(async () => {
  // SIGNING_KEYS spares the key kept in the database (see auth-unavailable.test.ts).
  const key = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
  const env = { TRUSTED_PROXY: "1", SIGNING_KEYS: JSON.stringify([key]) };
  const databaseUrl = "postgresql://agent:gate@127.0.0.1:1/unreachable";
  [servers.front, servers.next] = await Promise.all([
    startServer({ label: "down-front", databaseUrl, env }),
    startServer({ label: "down-next", databaseUrl, env: { ...env, NODE_FRONT: "off" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([servers.front?.stop(), servers.next?.stop()]);
});

const JSON_HEADERS = { "Content-Type": "application/json" };
const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };
const rpc = (method: string, params: unknown, id: unknown = 7): string => JSON.stringify({ jsonrpc: "2.0", id, method, params });

function send(side: Side, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  const all: Record<string, string> = { "X-Forwarded-For": freshIp(), ...headers };
  if (body !== undefined) all["Content-Length"] = String(Buffer.byteLength(body));
  return rawRequest(`${baseOf(side)}${path}`, { method: body === undefined ? "GET" : "POST", headers: all, body });
}

const PLAUSIBLE_CALLS: [string, Record<string, unknown>][] = [
  ["lookup_member", { name_or_slug: "Ada Lovelace" }],
  ["get_community_stats", {}],
  ["register_agent", { agent_name: "Trip Planner Agent", user_authorized: true }],
  ["verify_certificate", { certificate_id: "AG-2025-0001" }],
];

describe("database unreachable", () => {
  it("MCP: each tool is a tool error saying temporarily unavailable, retry later; never the database's address", async () => {
    for (const side of SIDES) {
      for (const [name, args] of PLAUSIBLE_CALLS) {
        const res = await send(side, "/mcp", MCP_HEADERS, rpc("tools/call", { name, arguments: args }));
        expect(res.status, res.body).toBe(200);
        const body = JSON.parse(res.body) as { id: number; result: { isError: boolean; content: { type: string; text: string }[] } };
        expect(body.id).toBe(7);
        expect(body.result.isError, `${side} ${name}`).toBe(true);
        expect(body.result.content[0]!.text).toMatch(/^Temporarily unavailable: .*retry after 5 seconds\.$/);
        expectNoInternals(res.body, baseOf(side), `${side} ${name}`);
      }
    }
  });

  it("A2A: message/send, tasks/get and tasks/cancel answer JSON-RPC -32011 with HTTP 503 and Retry-After", async () => {
    const bodies = [
      rpc("message/send", { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "lookup_member Ada Lovelace" }] } }),
      rpc("message/send", { message: { kind: "message", role: "user", messageId: "m2", parts: [{ kind: "data", data: { skill: "get_community_stats", input: {} } }] } }),
      rpc("tasks/get", { id: "0195f3c0-0000-7000-8000-000000000000" }),
      rpc("tasks/cancel", { id: "t-1" }),
    ];
    for (const side of SIDES) {
      for (const body of bodies) {
        const res = await send(side, "/a2a", JSON_HEADERS, body);
        expect(res.status, res.body).toBe(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect(res.headers["content-type"]).toBe("application/json");
        expect(JSON.parse(res.body)).toEqual({
          jsonrpc: "2.0",
          id: 7,
          error: { code: -32011, message: "Temporarily unavailable: retry after 5 seconds.", data: { retry_after: 5 } },
        });
      }
      // Bad input is still bad input, not a transient failure.
      const bad = await send(side, "/a2a", JSON_HEADERS, rpc("tasks/get", { id: "a\u0000b" }));
      expect(JSON.parse(bad.body)).toMatchObject({ error: { code: -32602 } });
    }
  });

  it("batch and the token endpoint answer 503 temporarily_unavailable with Retry-After; /ask needs no database", async () => {
    for (const side of SIDES) {
      const batch = await send(side, "/api/v1/batch", JSON_HEADERS, JSON.stringify({ items: [{ id: "a", operation: "docs.ask", arguments: { query: "polling" } }] }));
      expect(batch.status).toBe(503);
      expect(batch.headers["retry-after"]).toBe("5");
      expect(JSON.parse(batch.body)).toMatchObject({ error: "temporarily_unavailable" });
      const token = await send(
        side,
        "/oauth2/token",
        { "Content-Type": "application/x-www-form-urlencoded" },
        `grant_type=${encodeURIComponent("urn:vendor:agent-auth:grant-type:claim")}&claim_token=clm_${"a".repeat(43)}`,
      );
      expect(token.status).toBe(503);
      expect(JSON.parse(token.body)).toMatchObject({ error: "temporarily_unavailable" });
      expect((await send(side, "/ask?query=polling%20interval")).status).toBe(200);
    }
  });

  it("fast-check: hostile input on MCP, A2A, batch, /ask and the token endpoint never gets a 500 or internals", { timeout: 240_000 }, async () => {
    const mcp = fc
      .tuple(
        fc.constantFrom(...PLAUSIBLE_CALLS.map(([name]) => name)),
        fc.record(
          { name_or_slug: fieldValue("Ada"), certificate_id: fieldValue("AG-2025-0001"), agent_name: fieldValue("Agent"), user_authorized: fieldValue() },
          { requiredKeys: [] },
        ),
      )
      .map(([name, args]) => ({ path: "/mcp", headers: MCP_HEADERS, body: rpc("tools/call", { name, arguments: args }) }));
    const a2a = fc.tuple(fc.constantFrom("message/send", "tasks/get", "tasks/cancel"), hostileString(20)).map(([method, value]) => ({
      path: "/a2a",
      headers: JSON_HEADERS,
      body: rpc(
        method,
        method === "message/send"
          ? { message: { kind: "message", role: "user", messageId: "m", parts: [{ kind: "text", text: `lookup_member ${value}` }] } }
          : { id: value || "x" },
      ),
    }));
    const batch = fieldValue("polling").map((query) => ({
      path: "/api/v1/batch",
      headers: JSON_HEADERS,
      body: JSON.stringify({ items: [{ id: "a", operation: "docs.ask", arguments: { query } }] }),
    }));
    const ask = hostileString(20).map((query) => ({ path: `/ask?query=${percentEncoded(query)}`, headers: {}, body: undefined }));
    const token = hostileString(30).map((value) => ({
      path: "/oauth2/token",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: value }).toString(),
    }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(mcp, a2a, batch, ask, token), async (request) => {
        const answers: Partial<Record<Side, RawResponse>> = {};
        for (const side of SIDES) {
          const res = await send(side, request.path, request.headers, request.body);
          answers[side] = res;
          // 503 is the documented answer to an unreachable database; a 500 never is.
          expect(res.status, res.body).not.toBe(500);
          expect(res.status).toBeLessThan(504);
          if (res.status === 503) expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
          expectNoInternals(res.body, baseOf(side), `${side} ${request.path}`);
        }
        expect(answers.front!.status, request.body).toBe(answers.next!.status);
      }),
      { numRuns: 60 },
    );
  });
});
