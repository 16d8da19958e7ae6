// Budgets of the anonymous surfaces (issue 19, items 2–5), on a server of its own with small allowances set
// through the variables of lib/rate-limit/budgets.ts. Each case is its own caller (TRUSTED_PROXY=1 and a fresh
// X-Forwarded-For), so cases never share a bucket. Counted per JSON-RPC message, not per POST; refused with
// HTTP 429 + Retry-After: REST the CONTRACT.md body, MCP and A2A the JSON-RPC error -32010 with data.retry_after.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../support/server";
import { approvedTokens, freshIp, JWT_BEARER_GRANT, postForm, startAuthServer, uniqueEmail, useServerDatabase } from "../support/agent-auth";

let server: TestServer;
let base: string;

const LIMITS = {
  RATE_LIMIT_MCP_PER_MINUTE: "5",
  RATE_LIMIT_MCP_DOCS_PER_MINUTE: "4",
  RATE_LIMIT_A2A_PER_MINUTE: "3",
  RATE_LIMIT_ASK_PER_MINUTE: "3",
  RATE_LIMIT_LOOKUPS_PER_MINUTE: "2",
  RATE_LIMIT_TOKEN_EXCHANGE_PER_MINUTE: "2",
};

beforeAll(async () => {
  server = await startAuthServer(LIMITS);
  base = server.baseUrl;
  useServerDatabase(server.databaseUrl);
});

afterAll(async () => {
  await server?.stop();
});

const MCP_ACCEPT = "application/json, text/event-stream";
const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });
const lookup = (id: number) => rpc("tools/call", { name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } }, id);

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function post(path: string, body: unknown, ip: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: MCP_ACCEPT, "X-Forwarded-For": ip, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: text === "" ? null : (JSON.parse(text) as unknown) };
}

/** The exact refusal of MCP and A2A: HTTP 429, Retry-After N, JSON-RPC -32010 with data.retry_after N. */
function expectRpcRateLimited(answer: Answer, id: string | number | null): void {
  expect(answer.status).toBe(429);
  const seconds = Number(answer.retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(answer.body).toEqual({ jsonrpc: "2.0", id, error: { code: -32010, message: `Rate limited: retry after ${seconds} seconds.`, data: { retry_after: seconds } } });
}

const a2aSend = (skill: string, input: Record<string, unknown>, id: number) =>
  rpc("message/send", { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "data", data: { skill, input } }] } }, id);

describe("per-message budgets on MCP", () => {
  it("/mcp counts every message of a batch: 4 + 1 pass, the 6th message is refused with -32010", async () => {
    const ip = freshIp();
    const batch = await post(
      "/mcp",
      [1, 2, 3, 4].map((id) => rpc("tools/list", {}, id)),
      ip,
    );
    expect(batch.status).toBe(200);
    expect(batch.body).toHaveLength(4);
    expect((await post("/mcp", rpc("tools/list", {}, 5), ip)).status).toBe(200);
    expectRpcRateLimited(await post("/mcp", rpc("tools/list", {}, 6), ip), 6);
    // A refused batch answers once, under id null.
    expectRpcRateLimited(await post("/mcp", [rpc("tools/list", {}, 7), rpc("tools/list", {}, 8)], ip), null);
  });

  it("answers the same refusal under both revisions served (2025-03-26 and 2025-06-18)", async () => {
    for (const version of ["2025-03-26", "2025-06-18"]) {
      const ip = freshIp();
      for (let i = 0; i < 5; i++) expect((await post("/mcp", rpc("tools/list", {}, i), ip, { "MCP-Protocol-Version": version })).status).toBe(200);
      expectRpcRateLimited(await post("/mcp", rpc("tools/list", {}, "last"), ip, { "MCP-Protocol-Version": version }), "last");
    }
  });

  it("answers the same refusal to a 2026-07-28 request (stateless: the _meta envelope and the SEP-2243 headers)", async () => {
    const ip = freshIp();
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const headers = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" };
    for (let i = 0; i < 5; i++) expect((await post("/mcp", rpc("tools/list", { _meta: envelope }, i), ip, headers)).status).toBe(200);
    expectRpcRateLimited(await post("/mcp", rpc("tools/list", { _meta: envelope }, "last"), ip, headers), "last");
  });

  it("/mcp/docs has its own budget", async () => {
    const ip = freshIp();
    for (let i = 0; i < 4; i++) expect((await post("/mcp/docs", rpc("tools/call", { name: "search_docs", arguments: { query: "token" } }, i), ip)).status).toBe(200);
    expectRpcRateLimited(await post("/mcp/docs", rpc("tools/list", {}, 9), ip), 9);
    // Another caller is not affected.
    expect((await post("/mcp/docs", rpc("tools/list", {}, 1), freshIp())).status).toBe(200);
  });

  it("an IPv6 caller cannot escape by changing addresses within its /64", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    for (let i = 0; i < 5; i++) expect((await post("/mcp", rpc("tools/list", {}, i), `${prefix}::${i + 1}`)).status).toBe(200);
    expectRpcRateLimited(await post("/mcp", rpc("tools/list", {}, 99), `${prefix}:ffff:ffff:ffff:ffff`), 99);
  });
});

describe("the lookups budget, shared by MCP and A2A", () => {
  it("lookup_member twice by MCP, then refused on MCP and on A2A alike; other tools still answer", async () => {
    const ip = freshIp();
    expect((await post("/mcp", lookup(1), ip)).status).toBe(200);
    expect((await post("/mcp", [lookup(2)], ip)).status).toBe(200);
    expectRpcRateLimited(await post("/mcp", lookup(3), ip), 3);
    expectRpcRateLimited(await post("/a2a", a2aSend("verify_certificate", { certificate_id: "AG-2025-0001" }, 4), ip), 4);
    const stats = await post("/mcp", rpc("tools/call", { name: "get_community_stats", arguments: {} }, 5), ip);
    expect(stats.status).toBe(200);
  });

  it("verify_certificate by A2A spends the same budget", async () => {
    const ip = freshIp();
    for (const id of [1, 2]) {
      const answer = await post("/a2a", a2aSend("verify_certificate", { certificate_id: "AG-2025-0001" }, id), ip);
      expect(answer.status).toBe(200);
      expect((answer.body as { result?: { status: { state: string } } }).result?.status.state).toBe("completed");
    }
    expectRpcRateLimited(await post("/mcp", rpc("tools/call", { name: "verify_certificate", arguments: { certificate_id: "AG-2025-0002" } }, 3), ip), 3);
  });
});

describe("the a2a budget", () => {
  it("three POSTs pass, the fourth is refused with -32010 under its id", async () => {
    const ip = freshIp();
    for (const id of [1, 2, 3]) expect((await post("/a2a", rpc("tasks/get", { id: randomUUID() }, id), ip)).status).toBe(200);
    expectRpcRateLimited(await post("/a2a", rpc("tasks/get", { id: randomUUID() }, "four"), ip), "four");
  });
});

describe("A2A 1.0 spends the same budgets as 0.3", () => {
  const sendMessage = (skill: string, input: Record<string, unknown>, id: number | string) =>
    rpc("SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ data: { skill, input }, mediaType: "application/json" }] } }, id);
  const V1 = { "A2A-Version": "1.0" };

  it("three SendMessage POSTs pass, the fourth is refused with -32010 under its id", async () => {
    const ip = freshIp();
    for (const id of [1, 2, 3]) expect((await post("/a2a", sendMessage("get_community_stats", {}, id), ip, V1)).status).toBe(200);
    expectRpcRateLimited(await post("/a2a", sendMessage("get_community_stats", {}, "four"), ip, V1), "four");
  });

  it("lookup_member by SendMessage spends the lookups budget that MCP spends", async () => {
    const ip = freshIp();
    expect((await post("/mcp", lookup(1), ip)).status).toBe(200);
    expect((await post("/a2a", sendMessage("lookup_member", { name_or_slug: "ada-lovelace" }, 2), ip, V1)).status).toBe(200);
    expectRpcRateLimited(await post("/a2a", sendMessage("lookup_member", { name_or_slug: "ada-lovelace" }, 3), ip, V1), 3);
  });
});

describe("the ask budget (REST)", () => {
  it("three questions pass, the fourth is the CONTRACT.md rate_limited body with Retry-After", async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/ask?query=token%20polling`, { headers: { "X-Forwarded-For": ip } })).status).toBe(200);
    const res = await fetch(`${base}/ask?query=token%20polling`, { headers: { "X-Forwarded-For": ip } });
    expect(res.status).toBe(429);
    const seconds = Number(res.headers.get("retry-after"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: "rate_limited", error_description: expect.any(String) });
  });
});

describe("at most 10 JSON-RPC messages per POST", () => {
  async function preRegistered(name: string): Promise<boolean> {
    const { getDb } = await import("@/lib/db/prisma");
    return (await getDb().agentNamePreRegistration.findFirst({ where: { agentName: name } })) !== null;
  }

  for (const path of ["/mcp", "/mcp/docs", "/a2a"]) {
    it(`${path}: 11 messages are one -32600, nothing run`, async () => {
      const ip = freshIp();
      const name = `Cap Test ${randomUUID().slice(0, 8)}`;
      const register = rpc("tools/call", { name: "register_agent", arguments: { agent_name: name, user_authorized: true } }, 0);
      const eleven = [register, ...Array.from({ length: 10 }, (_, i) => rpc("tools/list", {}, i + 1))];
      const answer = await post(path, eleven, ip);
      expect(answer.status).toBe(path === "/a2a" ? 200 : 400);
      expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
      expect(Array.isArray(answer.body)).toBe(false);
      expect(await preRegistered(name)).toBe(false);
      // The caller is still served (the refused POST spent at most one unit, never eleven).
      expect((await post(path, path === "/a2a" ? rpc("tasks/get", { id: randomUUID() }, 1) : rpc("tools/list", {}, 1), ip)).status).toBe(200);
    });
  }

  it("/mcp: ten messages still run as a batch under 2025-03-26", async () => {
    const answer = await post(
      "/mcp",
      Array.from({ length: 3 }, (_, i) => rpc("tools/list", {}, i)),
      freshIp(),
      { "MCP-Protocol-Version": "2025-03-26" },
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(3);
  });

  it("/mcp and /mcp/docs: MCP 2025-06-18 takes no arrays at all (-32600, nothing run)", async () => {
    for (const path of ["/mcp", "/mcp/docs"]) {
      const answer = await post(path, [rpc("tools/list", {}, 1), rpc("tools/list", {}, 2)], freshIp(), { "MCP-Protocol-Version": "2025-06-18" });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
  });
});

describe("one caller key for the per-address rules", () => {
  it("/agent/identity: thirty addresses of one IPv6 /64 are one caller (the 21st registration is refused)", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:2`;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await fetch(`${base}/agent/identity`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": `${prefix}:${i.toString(16)}::1` },
        body: JSON.stringify({ type: "service_auth", login_hint: uniqueEmail() }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});

describe("the JWT-bearer exchange budget, per assertion", () => {
  it("two exchanges of one assertion pass, the third is rate_limited with Retry-After; another assertion is not affected", async () => {
    const { tokens } = await approvedTokens(base);
    const exchange = (assertion: string) => postForm(base, "/oauth2/token", { grant_type: JWT_BEARER_GRANT, assertion, resource: `${base}/api` });
    for (let i = 0; i < 2; i++) expect((await exchange(tokens.identity_assertion)).status).toBe(200);
    const refused = await exchange(tokens.identity_assertion);
    expect(refused.status).toBe(429);
    const seconds = Number(refused.headers.get("retry-after"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await refused.json()).toEqual({ error: "rate_limited", error_description: expect.any(String) });
    const other = await approvedTokens(base);
    expect((await exchange(other.tokens.identity_assertion)).status).toBe(200);
  });
});
