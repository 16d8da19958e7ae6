// Issue 44, budgets per verified agent: on the public reads, a request with a valid Web Bot Auth signature (Cloudflare's
// web-bot-auth signer, a local key directory) is counted under its verified origin instead of its address, so two
// signed agents behind one address get separate allowances and an unsigned client there keeps its own. A signature
// that is not accepted is answered and counted as unsigned: public reads never refuse for it. A verified agent's
// allowance is VERIFIED_AGENT_ALLOWANCE_FACTOR (default 2) times an address's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshIp, startAuthServer } from "../support/agent-auth";
import type { TestServer } from "../support/server";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";

let server: TestServer;
const agents: { key: AgentKey; directory: DirectoryServer }[] = [];

beforeAll(async () => {
  server = await startAuthServer({
    AGENT_DIRECTORY_ALLOW_PRIVATE: "1",
    RATE_LIMIT_ASK_PER_MINUTE: "2",
    RATE_LIMIT_MCP_PER_MINUTE: "2",
    RATE_LIMIT_SIMULATE_PER_MINUTE: "2",
    RATE_LIMIT_MAP_SEARCH_PER_MINUTE: "2",
  });
  for (let i = 0; i < 2; i++) {
    const key = await newAgentKey();
    agents.push({ key, directory: await startDirectory([key]) });
  }
});
afterAll(async () => {
  await server?.stop();
  await Promise.all(agents.map((agent) => agent.directory.close()));
});

const MCP_ACCEPT = "application/json, text/event-stream";
const LOOKUP = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } } };

/** `count` answers in a row. */
async function times(count: number, call: () => Promise<number>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push(await call());
  return statuses;
}

async function ask(ip: string, agent?: { key: AgentKey; directory: DirectoryServer }): Promise<number> {
  const url = `${server.baseUrl}/ask?query=token%20polling`;
  const signature = agent ? await signRequest(agent.key, agent.directory.origin, "GET", url) : {};
  return (await fetch(url, { headers: { "x-forwarded-for": ip, ...signature } })).status;
}

async function mcp(ip: string, agent?: { key: AgentKey; directory: DirectoryServer }, tamper = false): Promise<number> {
  const url = `${server.baseUrl}/mcp`;
  const signature = agent ? await signRequest(agent.key, agent.directory.origin, "POST", url) : {};
  if (tamper && "signature" in signature) signature.signature = signature.signature.replace(/:[A-Za-z0-9+/]{8}/, ":AAAAAAAA");
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: MCP_ACCEPT, "x-forwarded-for": ip, ...signature },
    body: JSON.stringify(LOOKUP),
  });
  await response.text();
  return response.status;
}

/** POST /api/v1/sandbox/simulate as `ip`, signed by `agent` if given. */
async function simulate(ip: string, agent?: { key: AgentKey; directory: DirectoryServer }): Promise<Response> {
  const url = `${server.baseUrl}/api/v1/sandbox/simulate`;
  const signature = agent ? await signRequest(agent.key, agent.directory.origin, "POST", url) : {};
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip, ...signature },
    body: JSON.stringify({ scenario: "agent_auth_challenge" }),
  });
}

/** GET /api/map/search as the map page asks for it (same origin), as `ip`, signed by `agent` if given. */
async function mapSearch(ip: string, agent?: { key: AgentKey; directory: DirectoryServer }): Promise<number> {
  const url = `${server.baseUrl}/api/map/search`;
  const signature = agent ? await signRequest(agent.key, agent.directory.origin, "GET", url) : {};
  const response = await fetch(url, { headers: { "sec-fetch-site": "same-origin", "x-forwarded-for": ip, ...signature } });
  await response.text();
  return response.status;
}

describe("budgets per verified agent", () => {
  it("the map search: counted under a verified agent's origin, the key its admission share uses, not the address", async () => {
    const ip = freshIp();
    expect(await times(3, () => mapSearch(ip))).toEqual([200, 200, 429]);
    expect(await times(5, () => mapSearch(ip, agents[1]))).toEqual([200, 200, 200, 200, 429]);
  });

  it("/ask: two signed agents on one address get separate allowances, and an unsigned client there keeps its own", async () => {
    const ip = freshIp();
    for (const agent of [agents[0], agents[1], undefined]) {
      // Two for the address (RATE_LIMIT_ASK_PER_MINUTE), twice that for a verified agent.
      const allowance = agent ? 4 : 2;
      expect(await times(allowance, () => ask(ip, agent))).toEqual(Array(allowance).fill(200));
      expect(await ask(ip, agent)).toBe(429);
    }
  });

  it("MCP: the same, and a bad signature is answered as unsigned, counted under the address", async () => {
    const ip = freshIp();
    expect(await times(4, () => mcp(ip, agents[0]))).toEqual([200, 200, 200, 200]);
    expect(await mcp(ip, agents[0])).toBe(429);
    expect(await times(4, () => mcp(ip, agents[1]))).toEqual([200, 200, 200, 200]);
    // Never a refusal for the signature itself: a tampered one reads as unsigned and spends the address's budget.
    expect(await mcp(ip, agents[1], true)).toBe(200);
    expect(await mcp(ip)).toBe(200);
    expect(await mcp(ip)).toBe(429);
  });

  it("the simulator: an address runs out (429 rate_limited, Retry-After, nothing simulated), a verified agent on it keeps its own", async () => {
    const ip = freshIp();
    for (let i = 0; i < 2; i++) {
      const answer = await simulate(ip);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { scenario: string }).scenario).toBe("agent_auth_challenge");
    }
    const refused = await simulate(ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toEqual({ error: "rate_limited", error_description: expect.any(String) });
    // Twice the address's allowance for the verified agent (VERIFIED_AGENT_ALLOWANCE_FACTOR), from the same address.
    const signed: number[] = [];
    for (let i = 0; i < 5; i++) signed.push((await simulate(ip, agents[0])).status);
    expect(signed).toEqual([200, 200, 200, 200, 429]);
    expect((await simulate(ip)).status).toBe(429);
  });
});
