// The node:http front (lib/server/front; its table: lib/front-routes) answers the hottest API paths under
// `next start`. It must answer exactly as the route files do through Next: the same requests go to a server with the front (NODE_FRONT on, the
// default) and to one without it (NODE_FRONT=off) on the same database, and every answer is compared —
// status, body and every header a client acts on. Next marks what it serves with its own Vary tokens
// (rsc, next-router-…); the front does not, which shows who answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/server";
import { athOf, newDpopKey, signProof, type DpopKey, type ProofClaims } from "../support/dpop";
import {
  approveAs,
  approvedTokens,
  CLAIM_GRANT,
  freshIp,
  JWT_BEARER_GRANT,
  newMember,
  rawRequest,
  register,
  startAuthServer,
  useServerDatabase,
  type RawResponse,
  type RegistrationJson,
  type TokenJson,
} from "../support/agent-auth";

let front: TestServer;
let next: TestServer;
const servers = (): { name: "front" | "next"; base: string }[] => [
  { name: "front", base: front.baseUrl },
  { name: "next", base: next.baseUrl },
];

beforeAll(async () => {
  front = await startAuthServer();
  useServerDatabase(front.databaseUrl);
  next = await startServer({ label: "auth-next", databaseUrl: front.databaseUrl, env: { TRUSTED_PROXY: "1", NODE_FRONT: "off" } });
});

afterAll(async () => {
  await Promise.all([front?.stop(), next?.stop()]);
});

/** Headers a client acts on; Date, Connection and framing are the transport's business. */
const COMPARED = [
  "content-type",
  "cache-control",
  "pragma",
  "www-authenticate",
  "allow",
  "retry-after",
  "access-control-allow-origin",
  "x-content-type-options",
  "referrer-policy",
  "x-frame-options",
  "content-security-policy",
  // Issue 52: the nonce of a use_dpop_nonce answer (its value is the time slot's, compared as present or not).
  "dpop-nonce",
] as const;

/** Next's own Vary tokens (RSC routing and its compression) say nothing about our answer. */
const NEXT_VARY = new Set(["rsc", "next-router-state-tree", "next-router-prefetch", "next-router-segment-prefetch", "accept-encoding"]);

function varyTokens(res: RawResponse): string[] {
  const raw = res.headers.vary;
  const value = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  return value
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== "");
}

/** Secrets, ids, members and instants differ between two answers by design; the base URL differs by server. */
function mask(text: string, base: string): string {
  return text
    .split(base)
    .join("{base}")
    .replace(/aca_[A-Za-z0-9_-]+/g, "aca_…")
    .replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, "jwt…")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "uuid")
    .replace(/agent-test-[0-9a-f]+@example\.com/g, "member@example.com")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "instant");
}

interface Comparable {
  status: number;
  headers: Record<string, string | undefined>;
  vary: string[];
  body: string;
}

function comparable(res: RawResponse, base: string): Comparable {
  const headers: Record<string, string | undefined> = {};
  for (const name of COMPARED) {
    const value = res.headers[name];
    headers[name] = value === undefined ? undefined : name === "dpop-nonce" ? "nonce…" : mask(Array.isArray(value) ? value.join(", ") : value, base);
  }
  return { status: res.status, headers, vary: varyTokens(res).filter((t) => !NEXT_VARY.has(t)), body: mask(res.body, base) };
}

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** The body, or a function of the server (for per-server secrets such as a claim token). */
  body?: string | ((server: "front" | "next") => string);
  /** Per-server request headers (e.g. a token minted on that server). */
  headersFor?: (server: "front" | "next") => Record<string, string>;
  /** Answered by server.ts's body gate before the front or Next sees it (a body over its route's limit, lib/routes). */
  byBodyGate?: true;
}

async function send(c: Case, server: "front" | "next", base: string): Promise<RawResponse> {
  const body = typeof c.body === "function" ? c.body(server) : c.body;
  const headers: Record<string, string> = { "X-Forwarded-For": freshIp(), ...c.headers, ...c.headersFor?.(server) };
  if (body !== undefined && headers["Content-Length"] === undefined) headers["Content-Length"] = String(Buffer.byteLength(body));
  return rawRequest(`${base}${c.path}`, { method: c.method, headers, body });
}

/** Sends the case to both servers and expects the same answer; returns the front's. */
async function expectSameAnswer(c: Case): Promise<RawResponse> {
  // One after the other: two processes writing one SQLite file at the same instant would see SQLITE_BUSY.
  const viaFront = { res: await send(c, "front", front.baseUrl), base: front.baseUrl };
  const viaNext = { res: await send(c, "next", next.baseUrl), base: next.baseUrl };
  expect(comparable(viaFront.res, viaFront.base), c.name).toEqual(comparable(viaNext.res, viaNext.base));
  // Who answered: Next's RSC Vary tokens on one side only (on neither when the body gate refused it first).
  expect(varyTokens(viaFront.res), `${c.name}: served by the front`).not.toContain("rsc");
  if (c.byBodyGate) expect(varyTokens(viaNext.res), `${c.name}: refused by the body gate`).not.toContain("rsc");
  else expect(varyTokens(viaNext.res), `${c.name}: served by Next`).toContain("rsc");
  return viaFront.res;
}

const form = { "Content-Type": "application/x-www-form-urlencoded" };

describe("own-account routes", () => {
  const tokens: Partial<Record<"front" | "next", TokenJson>> = {};
  const narrow: Partial<Record<"front" | "next", TokenJson>> = {};

  beforeAll(async () => {
    for (const s of servers()) {
      tokens[s.name] = (await approvedTokens(s.base)).tokens;
      narrow[s.name] = (await approvedTokens(s.base, { scopes: ["agent.account.read"] })).tokens;
    }
  });

  const bearer = (set: typeof tokens) => (server: "front" | "next") => ({ Authorization: `Bearer ${set[server]!.access_token}` });

  for (const path of ["/api/v1/agent/account", "/api/v1/agent/registrations"]) {
    const cases: Case[] = [
      { name: "valid token", method: "GET", path, headersFor: bearer(tokens) },
      { name: "HEAD with a valid token", method: "HEAD", path, headersFor: bearer(tokens) },
      { name: "no credential", method: "GET", path },
      { name: "another scheme", method: "GET", path, headers: { Authorization: "Basic dXNlcjpwYXNz" } },
      { name: "malformed Bearer", method: "GET", path, headers: { Authorization: "Bearer a b" } },
      { name: "unknown token", method: "GET", path, headers: { Authorization: `Bearer aca_${"x".repeat(43)}` } },
      { name: "not a token at all", method: "GET", path, headers: { Authorization: "Bearer zzz" } },
      { name: "a query", method: "GET", path: `${path}?access_token=x`, headersFor: bearer(tokens) },
      // Next drops a bare "?" before the route file sees it; the front must answer alike (issue 13).
      { name: "a bare ?", method: "GET", path: `${path}?`, headersFor: bearer(tokens) },
      { name: "a bare ? without a credential", method: "GET", path: `${path}?` },
      // Next's query parse drops a `__proto__` parameter (plain or percent-encoded): the route still sees it (fast-check found it).
      { name: "a __proto__ parameter", method: "GET", path: `${path}?__proto__`, headersFor: bearer(tokens) },
      { name: "an encoded __proto__ parameter without a credential", method: "GET", path: `${path}?%5F%5Fproto%5F%5F=1` },
      { name: "a body on GET", method: "GET", path, headersFor: bearer(tokens), body: "x" },
      { name: "narrower scope", method: "GET", path, headersFor: bearer(narrow) },
    ];
    for (const c of cases) {
      it(`${path}: ${c.name}`, async () => {
        await expectSameAnswer(c);
      });
    }
  }

  it("a __proto__ parameter is a query like any other: 400 invalid_request from both", async () => {
    const answer = await expectSameAnswer({ name: "__proto__", method: "GET", path: "/api/v1/agent/account?__proto__" });
    expect(answer.status).toBe(400);
  });

  it("the front's HEAD announces the length of the GET's body", async () => {
    const headers = bearer(tokens)("front");
    const get = await rawRequest(`${front.baseUrl}/api/v1/agent/account`, { headers });
    const head = await rawRequest(`${front.baseUrl}/api/v1/agent/account`, { method: "HEAD", headers });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(get.body)));
  });

  it("the front's 200 is the member's own account", async () => {
    const res = await expectSameAnswer({ name: "account", method: "GET", path: "/api/v1/agent/account", headersFor: bearer(tokens) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ email_verified: true, authorization: { registration_type: "service_auth" } });
  });
});

describe("POST /oauth2/token", () => {
  const claimTokens: Partial<Record<"front" | "next", string>> = {};
  const assertions: Partial<Record<"front" | "next", string>> = {};

  beforeAll(async () => {
    for (const s of servers()) {
      claimTokens[s.name] = (await register(s.base, await newMember())).claim_token;
      assertions[s.name] = (await approvedTokens(s.base)).tokens.identity_assertion;
    }
  });

  const cases: Case[] = [
    { name: "no grant_type", method: "POST", path: "/oauth2/token", headers: form, body: "claim_token=x" },
    { name: "unsupported grant", method: "POST", path: "/oauth2/token", headers: form, body: "grant_type=password" },
    { name: "JSON instead of a form", method: "POST", path: "/oauth2/token", headers: { "Content-Type": "application/json" }, body: '{"grant_type":"x"}' },
    { name: "a repeated field", method: "POST", path: "/oauth2/token", headers: form, body: `grant_type=${encodeURIComponent(CLAIM_GRANT)}&grant_type=x` },
    { name: "a body over 16 KiB", byBodyGate: true, method: "POST", path: "/oauth2/token", headers: form, body: `grant_type=x&pad=${"a".repeat(17 * 1024)}` },
    { name: "claim grant without claim_token", method: "POST", path: "/oauth2/token", headers: form, body: `grant_type=${encodeURIComponent(CLAIM_GRANT)}` },
    { name: "unknown claim token", method: "POST", path: "/oauth2/token", headers: form, body: `grant_type=${encodeURIComponent(CLAIM_GRANT)}&claim_token=clm_${"x".repeat(43)}` },
    {
      name: "pending claim",
      method: "POST",
      path: "/oauth2/token",
      headers: form,
      body: (server) => new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: claimTokens[server]! }).toString(),
    },
    {
      name: "polled again at once: slow_down",
      method: "POST",
      path: "/oauth2/token",
      headers: form,
      body: (server) => new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: claimTokens[server]! }).toString(),
    },
    {
      name: "exchange for another resource",
      method: "POST",
      path: "/oauth2/token",
      headers: form,
      body: (server) => new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: assertions[server]!, resource: "https://elsewhere.example/api" }).toString(),
    },
    {
      name: "exchange of a forged assertion",
      method: "POST",
      path: "/oauth2/token",
      headers: form,
      body: (server) =>
        new URLSearchParams({
          grant_type: JWT_BEARER_GRANT,
          assertion: `${assertions[server]!}x`,
          resource: `${server === "front" ? front.baseUrl : next.baseUrl}/api`,
        }).toString(),
    },
    {
      name: "exchange",
      method: "POST",
      path: "/oauth2/token",
      headers: form,
      body: (server) =>
        new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: assertions[server]!, resource: `${server === "front" ? front.baseUrl : next.baseUrl}/api` }).toString(),
    },
  ];
  // In order: the second poll depends on the first.
  it("answers every case as Next does", async () => {
    for (const c of cases) await expectSameAnswer(c);
  });

  it("methods the front does not serve still reach Next (405 with Allow)", async () => {
    const res = await rawRequest(`${front.baseUrl}/oauth2/token`, { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(varyTokens(res)).toContain("rsc");
  });
});

describe("DPoP (issue 52): own-account reads and both grants", () => {
  type Server = "front" | "next";
  const baseOf = (server: Server) => (server === "front" ? front.baseUrl : next.baseUrl);
  let key: DpopKey;
  let other: DpopKey;
  const bound: Partial<Record<Server, { claimToken: string; registrationId: string; accessToken: string; assertion: string }>> = {};
  const plain: Partial<Record<Server, TokenJson>> = {};

  beforeAll(async () => {
    key = await newDpopKey("ES256");
    other = await newDpopKey("EdDSA");
    for (const s of servers()) {
      const email = await newMember();
      const registered = await fetch(`${s.base}/agent/identity`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), dpop: await signProof(key, { htm: "POST", htu: `${s.base}/agent/identity` }) },
        body: JSON.stringify({ type: "service_auth", login_hint: email }),
      });
      const reg = (await registered.json()) as RegistrationJson;
      await approveAs(reg, email);
      const polled = await fetch(`${s.base}/oauth2/token`, {
        method: "POST",
        headers: { ...form, "x-forwarded-for": freshIp(), dpop: await signProof(key, { htm: "POST", htu: `${s.base}/oauth2/token` }) },
        body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: reg.claim_token }).toString(),
      });
      const tokens = (await polled.json()) as TokenJson;
      bound[s.name] = { claimToken: reg.claim_token, registrationId: reg.registration_id, accessToken: tokens.access_token, assertion: tokens.identity_assertion };
      plain[s.name] = (await approvedTokens(s.base)).tokens;
    }
  });

  /** Builds a case's headers for each server (a proof names its server's URL and is used once), then compares the answers. */
  async function expectSame(name: string, method: string, path: string, headers: (server: Server) => Promise<Record<string, string>>, body?: (server: Server) => string) {
    const built = { front: await headers("front"), next: await headers("next") };
    return expectSameAnswer({ name, method, path, headersFor: (server) => built[server], ...(body ? { body } : {}) });
  }

  const account = "/api/v1/agent/account";
  const proofFor =
    (claims: (server: Server) => Partial<ProofClaims>, header?: Record<string, unknown>, by?: () => DpopKey) =>
    (server: Server, method = "GET", path = account) =>
      signProof(by?.() ?? key, { htm: method, htu: `${baseOf(server)}${path}`, ath: athOf(bound[server]!.accessToken), ...claims(server) }, header);
  const dpopRead =
    (proof = proofFor(() => ({}))) =>
    async (server: Server) => ({ Authorization: `DPoP ${bound[server]!.accessToken}`, DPoP: await proof(server) });

  it("own-account reads", async () => {
    await expectSame("a DPoP read", "GET", account, dpopRead());
    await expectSame("a DPoP HEAD", "HEAD", account, async (server) => ({ Authorization: `DPoP ${bound[server]!.accessToken}`, DPoP: await proofFor(() => ({}))(server, "HEAD") }));
    await expectSame("a bound token sent as Bearer", "GET", account, async (server) => ({ Authorization: `Bearer ${bound[server]!.accessToken}` }));
    await expectSame("no proof", "GET", account, async (server) => ({ Authorization: `DPoP ${bound[server]!.accessToken}` }));
    await expectSame(
      "another key's proof",
      "GET",
      account,
      dpopRead(
        proofFor(
          () => ({}),
          undefined,
          () => other,
        ),
      ),
    );
    await expectSame("a stale iat (use_dpop_nonce)", "GET", account, dpopRead(proofFor(() => ({ iat: Math.floor(Date.now() / 1000) - 600 }))));
    await expectSame("an ath of another token", "GET", account, dpopRead(proofFor(() => ({ ath: athOf("aca_other") }))));
    await expectSame("two proofs", "GET", account, async (server) => ({
      Authorization: `DPoP ${bound[server]!.accessToken}`,
      DPoP: `${await proofFor(() => ({}))(server)}, ${await proofFor(() => ({}))(server)}`,
    }));
    await expectSame("the DPoP scheme with a Bearer token", "GET", account, async (server) => ({
      Authorization: `DPoP ${plain[server]!.access_token}`,
      DPoP: await signProof(key, { htm: "GET", htu: `${baseOf(server)}${account}`, ath: athOf(plain[server]!.access_token) }),
    }));
    await expectSame("a malformed DPoP credential", "GET", account, async () => ({ Authorization: "DPoP a b" }));
  });

  it("both grants", async () => {
    const tokenProof =
      (claims: Partial<ProofClaims> = {}) =>
      async (server: Server) => ({
        ...form,
        DPoP: await signProof(key, { htm: "POST", htu: `${baseOf(server)}/oauth2/token`, ...claims }),
      });
    const poll = (server: Server) => new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: bound[server]!.claimToken }).toString();
    const exchange = (server: Server) => new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: bound[server]!.assertion, resource: `${baseOf(server)}/api` }).toString();
    const { getDb } = await import("@/lib/db/prisma");
    const allowPolls = () =>
      getDb().claimAttempt.updateMany({ where: { registrationId: { in: [bound.front!.registrationId, bound.next!.registrationId] } }, data: { lastPolledAt: null } });
    await allowPolls();
    await expectSame("a bound poll without a proof", "POST", "/oauth2/token", async () => form, poll);
    await expectSame("a proof for another URL", "POST", "/oauth2/token", tokenProof({ htu: "https://elsewhere.example/oauth2/token" }), poll);
    await expectSame("a stale proof (use_dpop_nonce)", "POST", "/oauth2/token", tokenProof({ iat: 1 }), poll);
    const polled = await expectSame("a bound poll with its proof", "POST", "/oauth2/token", tokenProof(), poll);
    expect(JSON.parse(polled.body)).toMatchObject({ token_type: "DPoP" });
    await expectSame("a bound assertion exchanged without a proof", "POST", "/oauth2/token", async () => form, exchange);
    const exchanged = await expectSame("a bound assertion exchanged with its proof", "POST", "/oauth2/token", tokenProof(), exchange);
    expect(JSON.parse(exchanged.body)).toMatchObject({ token_type: "DPoP" });
  });
});

describe("GET /ask and POST /mcp", () => {
  const mcpHeaders = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const rpc = (method: string, params: unknown, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const cases: Case[] = [
    { name: "a question", method: "GET", path: "/ask?query=how%20do%20I%20poll%20for%20a%20token" },
    { name: "a question as markdown", method: "GET", path: "/ask?query=revocation", headers: { Accept: "text/markdown" } },
    { name: "HEAD of a question", method: "HEAD", path: "/ask?query=revocation" },
    { name: "no question", method: "GET", path: "/ask" },
    { name: "a repeated question", method: "GET", path: "/ask?query=a&query=b" },
    {
      name: "initialize",
      method: "POST",
      path: "/mcp",
      headers: mcpHeaders,
      body: rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }),
    },
    { name: "tools/list", method: "POST", path: "/mcp", headers: mcpHeaders, body: rpc("tools/list", {}) },
    { name: "lookup_member", method: "POST", path: "/mcp", headers: mcpHeaders, body: rpc("tools/call", { name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } }) },
    { name: "stats", method: "POST", path: "/mcp", headers: mcpHeaders, body: rpc("tools/call", { name: "get_community_stats", arguments: {} }) },
    { name: "not JSON", method: "POST", path: "/mcp", headers: mcpHeaders, body: "{" },
    { name: "without the Accept the transport needs", method: "POST", path: "/mcp", headers: { "Content-Type": "application/json" }, body: rpc("tools/list", {}) },
    {
      name: "a DNS-rebinding Host",
      method: "POST",
      path: "/mcp",
      headers: { ...mcpHeaders, Host: "attacker.example", Origin: "http://attacker.example" },
      body: rpc("tools/list", {}),
    },
    // The front parses the message itself and hands it over: these must come out as the SDK answers them.
    { name: "JSON after a byte-order mark", method: "POST", path: "/mcp", headers: mcpHeaders, body: `\uFEFF${rpc("tools/list", {})}` },
    { name: "an empty body", method: "POST", path: "/mcp", headers: mcpHeaders, body: "" },
    { name: "JSON null", method: "POST", path: "/mcp", headers: mcpHeaders, body: "null" },
    { name: "a batch", method: "POST", path: "/mcp", headers: mcpHeaders, body: `[${rpc("tools/list", {}, 1)},${rpc("tools/list", {}, 2)}]` },
    { name: "valid JSON as text/plain", method: "POST", path: "/mcp", headers: { ...mcpHeaders, "Content-Type": "text/plain" }, body: rpc("tools/list", {}) },
    // JSON-RPC 2.0 §6: an empty batch is one Invalid Request error, not a 202 (issue 13).
    { name: "an empty batch", method: "POST", path: "/mcp", headers: mcpHeaders, body: "[]" },
    {
      name: "a lone surrogate in a tool argument",
      method: "POST",
      path: "/mcp",
      headers: mcpHeaders,
      body: rpc("tools/call", { name: "verify_certificate", arguments: { certificate_id: "AG-\ud800" } }),
    },
    {
      name: "NUL in a tool argument",
      method: "POST",
      path: "/mcp",
      headers: mcpHeaders,
      body: rpc("tools/call", { name: "lookup_member", arguments: { name_or_slug: "a\u0000b" } }),
    },
    { name: "NUL in a question", method: "GET", path: "/ask?query=poll%00ing" },
    { name: "a format character in a question", method: "GET", path: "/ask?query=poll%E2%80%AEing" },
    // Issue 19: the per-POST message cap, and no arrays under MCP 2025-06-18 and later.
    { name: "eleven messages", method: "POST", path: "/mcp", headers: mcpHeaders, body: `[${Array.from({ length: 11 }, (_, i) => rpc("tools/list", {}, i)).join(",")}]` },
    { name: "an array under 2025-06-18", method: "POST", path: "/mcp", headers: { ...mcpHeaders, "MCP-Protocol-Version": "2025-06-18" }, body: `[${rpc("tools/list", {}, 1)}]` },
    // Issue 15: MCP 2026-07-28 (the per-request envelope, the SEP-2243 headers) on the same URL.
    ...modernCases(),
  ];
  function modernCases(): Case[] {
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const modern = (method: string, params: Record<string, unknown>, extra: Record<string, string> = {}) => ({
      method: "POST",
      path: "/mcp",
      headers: { ...mcpHeaders, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, ...extra },
      body: rpc(method, { ...params, _meta: envelope }),
    });
    const lookup = { name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } };
    return [
      { name: "2026-07-28 server/discover", ...modern("server/discover", {}) },
      { name: "2026-07-28 tools/list", ...modern("tools/list", {}) },
      { name: "2026-07-28 lookup_member", ...modern("tools/call", lookup, { "Mcp-Name": "lookup_member" }) },
      { name: "2026-07-28 without Mcp-Name", ...modern("tools/call", lookup) },
      { name: "2026-07-28 with a 2025 header", ...modern("tools/list", {}, { "MCP-Protocol-Version": "2025-11-25" }) },
      { name: "2026-07-28 an unknown method", ...modern("frobnicate", {}) },
      { name: "2026-07-28 an array", ...modern("tools/list", {}), body: `[${rpc("tools/list", { _meta: envelope }, 1)}]` },
      {
        name: "an unsupported revision",
        ...modern("tools/list", {}, { "MCP-Protocol-Version": "2099-01-01" }),
        body: rpc("tools/list", { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }),
      },
      { name: "a 2026 header without the envelope", ...modern("tools/list", {}), body: rpc("tools/list", {}) },
    ];
  }
  for (const c of cases) {
    it(c.name, async () => {
      await expectSameAnswer(c);
    });
  }
});

describe("POST /a2a", () => {
  const json = { "Content-Type": "application/json" };
  const v1 = { ...json, "A2A-Version": "1.0" };
  const rpc = (method: string, params: unknown, id: number | string = 1) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const legacyMessage = (text: string) => ({ message: { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text }] } });
  const v1Message = (text: string) => ({ message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text }] } });
  const cases: Case[] = [
    { name: "0.3 message/send", method: "POST", path: "/a2a", headers: json, body: rpc("message/send", legacyMessage("get_community_stats")) },
    { name: "0.3 message/send of a lookup", method: "POST", path: "/a2a", headers: json, body: rpc("message/send", legacyMessage("lookup_member ada-lovelace")) },
    { name: "0.3 tasks/get of an unknown task", method: "POST", path: "/a2a", headers: json, body: rpc("tasks/get", { id: "no-such-task" }) },
    { name: "1.0 SendMessage", method: "POST", path: "/a2a", headers: v1, body: rpc("SendMessage", v1Message("get_community_stats")) },
    { name: "1.0 GetTask of an unknown task", method: "POST", path: "/a2a", headers: v1, body: rpc("GetTask", { id: "no-such-task" }) },
    { name: "1.0 ListTasks of an unknown context", method: "POST", path: "/a2a", headers: v1, body: rpc("ListTasks", { contextId: "no-such-context" }) },
    { name: "an unsupported A2A-Version", method: "POST", path: "/a2a", headers: { ...json, "A2A-Version": "2.0" }, body: rpc("SendMessage", v1Message("x")) },
    { name: "a 1.0 method without A2A-Version", method: "POST", path: "/a2a", headers: json, body: rpc("SendMessage", v1Message("x")) },
    { name: "not JSON", method: "POST", path: "/a2a", headers: json, body: "{" },
    { name: "an array", method: "POST", path: "/a2a", headers: v1, body: `[${rpc("GetTask", { id: "t" })}]` },
    { name: "NUL in a part", method: "POST", path: "/a2a", headers: v1, body: rpc("SendMessage", v1Message("lookup_member a\u0000b")) },
    { name: "a body over 64 KiB", byBodyGate: true, method: "POST", path: "/a2a", headers: json, body: JSON.stringify({ pad: "x".repeat(70_000) }) },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await expectSameAnswer(c);
    });
  }
});

describe("operator probes", () => {
  const cases: Case[] = [
    { name: "GET /healthz", method: "GET", path: "/healthz" },
    { name: "HEAD /healthz", method: "HEAD", path: "/healthz" },
    { name: "GET /readyz", method: "GET", path: "/readyz" },
    { name: "HEAD /readyz", method: "HEAD", path: "/readyz" },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      await expectSameAnswer(c);
    });
  }
});
