// Issue 13: hostile input over every public input surface, through the real server with the node:http front
// on and off (one database). Full-range strings (lone surrogates, NUL, control and format characters) and type
// confusion in every field: every answer is the surface's documented error or success, never a 5xx, never
// text naming Prisma, SQL, a file path, a host or a port; the front and Next give the same answer.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2A_MESSAGE_SEND_RATE_LIMIT } from "@/lib/a2a/jsonrpc";
import { ERROR_STATUS } from "@/lib/http/errors";
import { SIMULATOR_SCENARIOS } from "@/lib/schemas/public-read";
import { approvedTokens, CLAIM_GRANT, freshIp, JWT_BEARER_GRANT, rawRequest, startAuthServer, useServerDatabase, type RawResponse } from "../support/agent-auth";
import { confusedValue, encodeBytes, expectNoInternals, fieldValue, hostileString, percentEncoded } from "../support/hostile";
import { startServer, type TestServer } from "../support/server";

let front: TestServer;
let next: TestServer;
type Side = "front" | "next";
const baseOf = (side: Side): string => (side === "front" ? front.baseUrl : next.baseUrl);

beforeAll(async () => {
  front = await startAuthServer();
  useServerDatabase(front.databaseUrl);
  next = await startServer({ label: "hostile-next", databaseUrl: front.databaseUrl, env: { TRUSTED_PROXY: "1", NODE_FRONT: "off" } });
});

afterAll(async () => {
  await Promise.all([front?.stop(), next?.stop()]);
});

interface Sent {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

function send(side: Side, request: Sent, ip = freshIp()): Promise<RawResponse> {
  const headers: Record<string, string> = { "X-Forwarded-For": ip, ...request.headers };
  if (request.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(request.body));
  return rawRequest(`${baseOf(side)}${request.path}`, { method: request.method ?? (request.body === undefined ? "GET" : "POST"), headers, body: request.body });
}

const JSON_HEADERS = { "Content-Type": "application/json" };
const FORM_HEADERS = { "Content-Type": "application/x-www-form-urlencoded" };
const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };
const KNOWN_CODES = new Set(Object.keys(ERROR_STATUS));

/** An own "__proto__" member first in a JSON object text (JSON.stringify cannot write one). */
const withProtoMember = (body: string, add: boolean): string =>
  add && body.startsWith("{") ? `{"__proto__": {"type": "service_auth", "admin": true}${body === "{}" ? "" : ", "}${body.slice(1)}` : body;

const rpc = (method: string, params: unknown, id: unknown = 1): string => JSON.stringify({ jsonrpc: "2.0", id, method, params });

/** A REST answer: success, or CONTRACT.md §2's error body with a known code; never 5xx, never internals. */
function expectRestAnswer(res: RawResponse, side: Side, okStatuses: number[]): void {
  expect(res.status, res.body).toBeLessThan(500);
  if (okStatuses.includes(res.status)) return;
  expect(res.headers["content-type"]).toBe("application/json");
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(["error", "error_description"]);
  expect(KNOWN_CODES.has(String(body["error"])), res.body).toBe(true);
  expectNoInternals(res.body, baseOf(side), "REST error");
}

interface RpcBody {
  jsonrpc: string;
  id: unknown;
  result?: { isError?: boolean; content?: { type: string; text?: string }[]; status?: { state: string; message?: { parts: { kind: string; text?: string }[] } } };
  error?: { code: number; message: string; data?: unknown };
}

/** A JSON-RPC answer (MCP or A2A): a result or an error object; error texts and tool errors in our own words. */
function expectRpcAnswer(res: RawResponse, side: Side): RpcBody {
  expect(res.status, res.body).toBeLessThan(500);
  const body = JSON.parse(res.body) as RpcBody;
  expect(body.jsonrpc).toBe("2.0");
  expect("result" in body !== "error" in body, res.body).toBe(true);
  if (body.error) {
    expect(Number.isInteger(body.error.code)).toBe(true);
    expectNoInternals(body.error.message, baseOf(side), "JSON-RPC error");
  }
  if (body.result?.isError) expectNoInternals(JSON.stringify(body.result.content), baseOf(side), "tool error");
  if (body.result?.status?.state === "failed") expectNoInternals(JSON.stringify(body.result.status), baseOf(side), "failed task");
  return body;
}

/** Base URLs, instants, ids and secrets differ between the two servers by design. */
function mask(text: string, side: Side): string {
  return text
    .split(baseOf(side))
    .join("{base}")
    .replace(/(aca|clm|cat|pre)_[A-Za-z0-9_-]+/g, "$1_…")
    .replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, "jwt…")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "uuid")
    .replace(/agent-test-[0-9a-f]+@example\.com/g, "member@example.com")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "instant");
}

/** Sends one request to both servers (one after the other: one SQLite file) and returns both answers. */
async function both(request: Sent | ((side: Side) => Sent)): Promise<Record<Side, RawResponse>> {
  const of = (side: Side): Sent => (typeof request === "function" ? request(side) : request);
  return { front: await send("front", of("front")), next: await send("next", of("next")) };
}

function expectSame(answers: Record<Side, RawResponse>, context: string): void {
  const view = (side: Side) => ({
    status: answers[side].status,
    type: answers[side].headers["content-type"],
    retryAfter: answers[side].headers["retry-after"],
    body: mask(answers[side].body, side),
  });
  expect(view("front"), context).toEqual(view("next"));
}

const RUNS = { numRuns: 80 };
const SIDES: Side[] = ["front", "next"];

describe("the rows of issue 13, front and Next", () => {
  it("POST /agent/identity: a lone surrogate, a bidi override, a zero-width space, a repeated login_hint are invalid_request and write nothing", async () => {
    const { getDb } = await import("@/lib/db/prisma");
    const before = await getDb().registration.count();
    const bodies = [
      JSON.stringify({ type: "service_auth", login_hint: "ada@example.com", client_name: "x\ud800" }),
      JSON.stringify({ type: "service_auth", login_hint: "ada@example.com", client_name: "Good\u202eliaM" }),
      JSON.stringify({ type: "service_auth", login_hint: "ada@example.com", client_name: "\u200bAdmin" }),
      JSON.stringify({ type: "service_auth", login_hint: "ada@example.com", client_name: "A\u0000B" }),
      '{"type": "service_auth", "login_hint": "ada@example.com", "login_hint": "grace@example.com"}',
      '{"type": "service_auth", "login_hint": "ada@example.com", "\\u006c\\u006f\\u0067in_hint": "grace@example.com"}',
    ];
    for (const body of bodies) {
      for (const side of SIDES) {
        const res = await send(side, { path: "/agent/identity", headers: JSON_HEADERS, body });
        expect(res.status, `${side} ${body}`).toBe(400);
        expect(JSON.parse(res.body)).toMatchObject({ error: "invalid_request" });
        expectNoInternals(res.body, baseOf(side), body);
      }
    }
    for (const side of SIDES) {
      const res = await send(side, { path: "/agent/identity/claim", headers: JSON_HEADERS, body: '{"claim_token": "clm_x", "email": "a@example.com", "email": "b@example.com"}' });
      expect(res.status).toBe(400);
      const simulator = await send(side, { path: "/api/v1/sandbox/simulate", headers: JSON_HEADERS, body: '{"scenario": "agent_auth_success", "scenario": "agent_auth_pending"}' });
      expect(simulator.status).toBe(400);
      expect(JSON.parse(simulator.body)).toMatchObject({ error: "invalid_request" });
      const batch = await send(side, {
        path: "/api/v1/batch",
        headers: JSON_HEADERS,
        body: '{"items": [{"id": "a", "operation": "docs.ask", "arguments": {"query": "poll"}}], "items": []}',
      });
      expect(batch.status).toBe(400);
      expect(JSON.parse(batch.body)).toMatchObject({ error: "invalid_request" });
    }
    expect(await getDb().registration.count()).toBe(before);
  });

  it("POST /a2a: tasks/get with a lone surrogate or NUL id, and lookup_member with NUL, are invalid params (-32602)", async () => {
    for (const body of [
      rpc("tasks/get", { id: "\ud800" }),
      rpc("tasks/cancel", { id: "a\u0000b" }),
      rpc("message/send", {
        message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "data", data: { skill: "lookup_member", input: { name_or_slug: "a\u0000b" } } }] },
      }),
      rpc("message/send", { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "verify_certificate AG-\ud800" }] } }),
    ]) {
      const answers = await both({ path: "/a2a", headers: JSON_HEADERS, body });
      for (const side of SIDES) {
        expect(answers[side].status).toBe(200);
        expect(expectRpcAnswer(answers[side], side).error?.code, body).toBe(-32602);
      }
    }
  });

  it("POST /mcp: lone surrogates and NUL in tool arguments are refused in our own words, never a database message", async () => {
    const calls: [string, Record<string, unknown>][] = [
      ["verify_certificate", { certificate_id: "AG-\ud800" }],
      ["register_agent", { agent_name: "x\ud800", user_authorized: true }],
      ["register_agent", { agent_name: "Good\u202eliaM", user_authorized: true }],
      ["lookup_member", { name_or_slug: "a\u0000b" }],
      ["verify_certificate", { certificate_id: "AG-\u0000" }],
    ];
    for (const [name, args] of calls) {
      const answers = await both({ path: "/mcp", headers: MCP_HEADERS, body: rpc("tools/call", { name, arguments: args }) });
      expectSame(answers, name);
      for (const side of SIDES) {
        const body = expectRpcAnswer(answers[side], side);
        const refused = body.error?.code === -32602 || body.result?.isError === true;
        expect(refused, answers[side].body).toBe(true);
      }
    }
    for (const [name, args] of [
      ["search_docs", { query: "poll\ud800" }],
      ["get_doc", { slug: "a\u0000" }],
    ] as const) {
      const answers = await both({ path: "/mcp/docs", headers: MCP_HEADERS, body: rpc("tools/call", { name, arguments: args }) });
      for (const side of SIDES) {
        const body = expectRpcAnswer(answers[side], side);
        expect(body.error?.code === -32602 || body.result?.isError === true, answers[side].body).toBe(true);
      }
    }
  });

  it("POST /mcp with [] is a JSON-RPC invalid request (-32600), on both paths", async () => {
    const answers = await both({ path: "/mcp", headers: MCP_HEADERS, body: "[]" });
    expectSame(answers, "[]");
    expect(answers.front.status).toBe(400);
    expect(JSON.parse(answers.front.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    // Notifications alone are still accepted with 202.
    const notification = await both({ path: "/mcp", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect(notification.front.status).toBe(202);
    expect(notification.next.status).toBe(202);
  });

  it("GET /api/v1/agent/account? (a bare ?) answers the same through the front and Next", async () => {
    const tokens: Partial<Record<Side, string>> = {};
    for (const side of SIDES) tokens[side] = (await approvedTokens(baseOf(side))).tokens.access_token;
    for (const path of ["/api/v1/agent/account?", "/api/v1/agent/registrations?"]) {
      const answers = await both((side) => ({ path, headers: { Authorization: `Bearer ${tokens[side]}` } }));
      expectSame(answers, path);
      expect(answers.front.status).toBe(200);
    }
    const query = await both((side) => ({ path: "/api/v1/agent/account?x", headers: { Authorization: `Bearer ${tokens[side]}` } }));
    expectSame(query, "?x");
    expect(query.front.status).toBe(400);
  });

  it(
    `A2A message/send is limited per address (${A2A_MESSAGE_SEND_RATE_LIMIT.limit} per ${A2A_MESSAGE_SEND_RATE_LIMIT.windowSeconds} s): -32010, HTTP 429, Retry-After, nothing stored`,
    { timeout: 240_000 },
    async () => {
      const { getDb } = await import("@/lib/db/prisma");
      const ip = freshIp();
      const body = rpc("message/send", { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "get_community_stats" }] } });
      // Ten at a time: the limit counts concurrent calls too.
      for (let sent = 0; sent < A2A_MESSAGE_SEND_RATE_LIMIT.limit; sent += 10) {
        const batch = Array.from({ length: Math.min(10, A2A_MESSAGE_SEND_RATE_LIMIT.limit - sent) }, () => send("front", { path: "/a2a", headers: JSON_HEADERS, body }, ip));
        for (const res of await Promise.all(batch)) expect(res.status, res.body).toBe(200);
      }
      const tasksBefore = await getDb().a2ATask.count();
      const refused = await send("next", { path: "/a2a", headers: JSON_HEADERS, body }, ip);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(JSON.parse(refused.body)).toEqual({
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32010, message: `Rate limited: retry after ${retryAfter} seconds.`, data: { retry_after: retryAfter } },
      });
      expect(await getDb().a2ATask.count()).toBe(tasksBefore);
      // Reading tasks is not counted; another address is not limited.
      const get = await send("front", { path: "/a2a", headers: JSON_HEADERS, body: rpc("tasks/get", { id: "no-such-task" }) }, ip);
      expect(JSON.parse(get.body)).toMatchObject({ error: { code: -32001 } });
      expect((await send("front", { path: "/a2a", headers: JSON_HEADERS, body })).status).toBe(200);
    },
  );
});

describe("fast-check over every public input surface, front and Next", () => {
  const object = (fields: Record<string, fc.Arbitrary<unknown>>) => fc.record(fields, { requiredKeys: [] });

  it("POST /agent/identity and /agent/identity/claim", { timeout: 240_000 }, async () => {
    const registration = object({
      type: fieldValue("service_auth"),
      login_hint: fieldValue("ada@example.com", "someone@example.com"),
      client_name: fieldValue("Trip Planner Agent", "Ada's Helper"),
      scopes: fc.oneof(fc.constant(["agent.account.read"]), fc.array(fieldValue("agent.account.read", "agent.registrations.read"), { maxLength: 2 }), confusedValue),
      extra: confusedValue,
    });
    const refresh = object({ claim_token: fieldValue(`clm_${"a".repeat(43)}`), email: fieldValue("ada@example.com"), extra: confusedValue });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          registration.map((b) => ["/agent/identity", b] as const),
          refresh.map((b) => ["/agent/identity/claim", b] as const),
        ),
        fc.boolean(),
        async ([path, value], proto) => {
          const body = withProtoMember(JSON.stringify(value), proto);
          for (const side of SIDES) expectRestAnswer(await send(side, { path, headers: JSON_HEADERS, body }), side, path === "/agent/identity" ? [200] : []);
        },
      ),
      RUNS,
    );
  });

  it("POST /oauth2/token and /oauth2/revoke (front-served: both answer alike)", { timeout: 240_000 }, async () => {
    const formValue = fc.oneof(fc.constantFrom(CLAIM_GRANT, JWT_BEARER_GRANT, `clm_${"a".repeat(43)}`, `aca_${"b".repeat(43)}`, "http://localhost/api"), hostileString());
    const fields = fc.array(fc.tuple(fc.constantFrom("grant_type", "claim_token", "assertion", "resource", "token", "token_type_hint"), formValue), { maxLength: 4 });
    const rawQuery = fc.uint8Array({ maxLength: 24 }).map((bytes) => `grant_type=${encodeURIComponent(CLAIM_GRANT)}&claim_token=${encodeBytes(bytes)}`);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/oauth2/token", "/oauth2/revoke"),
        fc.oneof(
          fields.map((pairs) => new URLSearchParams(pairs).toString()),
          rawQuery,
        ),
        async (path, body) => {
          const answers = await both({ path, headers: FORM_HEADERS, body });
          expectSame(answers, `${path} ${body}`);
          for (const side of SIDES) expectRestAnswer(answers[side], side, path === "/oauth2/revoke" ? [200] : []);
        },
      ),
      RUNS,
    );
  });

  it("own-account routes and /ask (front-served: both answer alike)", { timeout: 240_000 }, async () => {
    const latin1 = fc.string({
      unit: fc
        .integer({ min: 0x20, max: 0xff })
        .filter((c) => c !== 0x7f)
        .map((c) => String.fromCharCode(c)),
      maxLength: 40,
    });
    const ownAccount = fc.record({
      path: fc.constantFrom("/api/v1/agent/account", "/api/v1/agent/registrations"),
      query: fc.oneof(
        fc.constant(""),
        fc.constant("?"),
        hostileString(10).map((q) => `?${percentEncoded(q)}`),
      ),
      authorization: fc.oneof(
        latin1.map((t) => `Bearer ${t}`),
        latin1,
        fc.constant(`Bearer aca_${"x".repeat(43)}`),
      ),
    });
    const ask = fc.record({
      name: fc.constantFrom("query", "q", "query=a&query"),
      value: fc.oneof(hostileString(30).map(percentEncoded), fc.uint8Array({ maxLength: 20 }).map(encodeBytes)),
      markdown: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          ownAccount.map((o) => ({ kind: "own" as const, ...o })),
          ask.map((a) => ({ kind: "ask" as const, ...a })),
        ),
        async (c) => {
          const request: Sent =
            c.kind === "own"
              ? { path: `${c.path}${c.query}`, headers: { Authorization: c.authorization } }
              : { path: `/ask?${c.name}=${c.value}`, headers: c.markdown ? { Accept: "text/markdown" } : {} };
          const answers = await both(request);
          expectSame(answers, JSON.stringify(request));
          for (const side of SIDES) expectRestAnswer(answers[side], side, c.kind === "ask" ? [200] : []);
        },
      ),
      RUNS,
    );
  });

  it("POST /api/v1/batch and the simulator", { timeout: 240_000 }, async () => {
    const item = object({
      id: fieldValue("a", "b"),
      operation: fieldValue("content.list", "docs.ask"),
      arguments: fc.oneof(
        object({
          query: fieldValue("poll", "revocation"),
          type: fieldValue("guide"),
          limit: fc.oneof(fc.integer({ min: 1, max: 5 }), confusedValue),
          top_k: fc.oneof(fc.integer({ min: 1, max: 3 }), confusedValue),
        }),
        confusedValue,
      ),
    });
    const batch = object({ items: fc.oneof(fc.array(item, { minLength: 1, maxLength: 3 }), confusedValue), extra: confusedValue });
    const simulate = object({ scenario: fieldValue(...SIMULATOR_SCENARIOS), extra: confusedValue });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          batch.map((b) => ["/api/v1/batch", b] as const),
          simulate.map((b) => ["/api/v1/sandbox/simulate", b] as const),
        ),
        async ([path, value]) => {
          const body = JSON.stringify(value);
          const answers = await both({ path, headers: JSON_HEADERS, body });
          expectSame(answers, body);
          for (const side of SIDES) {
            expectRestAnswer(answers[side], side, [200]);
            if (answers[side].status !== 200 || path !== "/api/v1/batch") continue;
            const results = (JSON.parse(answers[side].body) as { results: { status: string; error?: unknown }[] }).results;
            for (const result of results) if (result.status === "error") expectNoInternals(JSON.stringify(result.error), baseOf(side), "batch item error");
          }
        },
      ),
      RUNS,
    );
  });

  it("POST /mcp tools/call of all four tools and /mcp/docs of both tools", { timeout: 240_000 }, async () => {
    const calls = fc.oneof(
      object({ name_or_slug: fieldValue("Ada Lovelace", "ada-lovelace") }).map((args) => ["/mcp", "lookup_member", args] as const),
      object({ extra: confusedValue }).map((args) => ["/mcp", "get_community_stats", args] as const),
      object({ agent_name: fieldValue("Trip Planner Agent"), description: fieldValue("Plans trips."), user_authorized: fc.oneof(fc.constant(true), confusedValue) }).map(
        (args) => ["/mcp", "register_agent", args] as const,
      ),
      object({ certificate_id: fieldValue("AG-2025-0001", "AG-2024-0099") }).map((args) => ["/mcp", "verify_certificate", args] as const),
      object({ query: fieldValue("slow_down polling"), limit: fc.oneof(fc.integer({ min: 1, max: 5 }), confusedValue) }).map((args) => ["/mcp/docs", "search_docs", args] as const),
      object({ slug: fieldValue("getting-started", "errors") }).map((args) => ["/mcp/docs", "get_doc", args] as const),
    );
    await fc.assert(
      fc.asyncProperty(calls, fc.oneof(fc.constant(undefined), confusedValue), async ([path, name, args], confusedArgs) => {
        const body = rpc("tools/call", { name, arguments: confusedArgs === undefined ? args : confusedArgs });
        const answers = await both({ path, headers: MCP_HEADERS, body });
        // register_agent answers pre_registered first and already_pre_registered after: compare everything else.
        if (name !== "register_agent") expectSame(answers, body);
        for (const side of SIDES) {
          expect(answers[side].status, answers[side].body).toBe(200);
          expectRpcAnswer(answers[side], side);
        }
      }),
      RUNS,
    );
  });

  it("POST /a2a message/send, tasks/get and tasks/cancel", { timeout: 240_000 }, async () => {
    const skills = ["lookup_member", "get_community_stats", "register_agent", "verify_certificate"];
    const input = object({
      name_or_slug: fieldValue("Ada Lovelace"),
      certificate_id: fieldValue("AG-2025-0001"),
      agent_name: fieldValue("Agent"),
      user_authorized: fc.oneof(fc.constant(true), confusedValue),
    });
    const part = fc.oneof(
      fc.record({ kind: fc.constant("data"), data: fc.oneof(fc.record({ skill: fieldValue(...skills), input: fc.oneof(input, confusedValue) }), confusedValue) }),
      fc.record({
        kind: fc.constant("text"),
        text: fc.oneof(
          fc.constantFrom(...skills).chain((skill) => hostileString(20).map((arg) => `${skill} ${arg}`)),
          confusedValue,
        ),
      }),
    );
    const send_ = object({
      message: fc.oneof(
        object({
          kind: fc.constant("message"),
          role: fc.constant("user"),
          messageId: fieldValue("m-1"),
          parts: fc.array(part, { minLength: 1, maxLength: 2 }),
          taskId: fieldValue("t-1"),
          metadata: confusedValue,
        }),
        confusedValue,
      ),
    }).map((params) => ["message/send", params] as const);
    const byId = fc.tuple(fc.constantFrom("tasks/get", "tasks/cancel"), object({ id: fieldValue("t-1", "0195f3c0-0000-7000-8000-000000000000"), historyLength: confusedValue }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(send_, byId), fieldValue("1"), async ([method, params], id) => {
        const body = rpc(method, params, id);
        for (const side of SIDES) {
          const res = await send(side, { path: "/a2a", headers: JSON_HEADERS, body });
          expect([200, 429], res.body).toContain(res.status);
          expectRpcAnswer(res, side);
        }
      }),
      RUNS,
    );
  });
});
