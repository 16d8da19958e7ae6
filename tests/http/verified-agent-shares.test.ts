// Issue 44 item 6, last point, under `npm start`: admission's per-caller share uses the budgets' key. server.ts's
// listener verifies a signed public read whose agent's key directory is cached (no network) and admits it under
// `agent:<origin>`, so two signed agents behind one address each get their own share of the public lane while an
// unsigned flood from that address is refused past its own. The listener's result rides to the handler in a header
// it alone writes (x-agent-gate-agent): a client-sent copy is never believed, and the handler does not verify the
// request a second time (a nonce is accepted once).
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/prisma";
import { freshIp, startAuthServer, uniqueEmail, useServerDatabase } from "../support/agent-auth";
import type { TestServer } from "../support/server";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";

let server: TestServer;
const agents: { key: AgentKey; directory: DirectoryServer }[] = [];
const others: DirectoryServer[] = [];

const LIFTED = "1000000";

beforeAll(async () => {
  server = await startAuthServer({
    AGENT_DIRECTORY_ALLOW_PRIVATE: "1",
    // The public lane: 4 running and 16 waiting, a caller holds a quarter (1 running, 4 waiting); waits bounded at 10 s.
    ADMISSION_PUBLIC_IN_FLIGHT: "4",
    ADMISSION_PUBLIC_QUEUE: "16",
    ADMISSION_CALLER_SHARE: "0.25",
    ADMISSION_QUEUE_WAIT_MS: "10000",
    // The budgets are not what is measured: every 429 here is a share's.
    RATE_LIMIT_MCP_PER_MINUTE: LIFTED,
    RATE_LIMIT_LOOKUPS_PER_MINUTE: LIFTED,
    RATE_LIMIT_IDENTITY_PER_10_MINUTES: LIFTED,
    RATE_LIMIT_IDENTITY_LOGIN_HINT_PER_HOUR: LIFTED,
  });
  useServerDatabase(server.databaseUrl);
  for (let i = 0; i < 2; i++) {
    const key = await newAgentKey();
    agents.push({ key, directory: await startDirectory([key]) });
  }
});
afterAll(async () => {
  await server?.stop();
  await Promise.all([...agents, ...others.map((directory) => ({ directory }))].map(({ directory }) => directory.close()));
});

const LOOKUP = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } } });

/** POST /mcp as `ip` (X-Forwarded-For: TRUSTED_PROXY=1), with these extra headers; the status (0: no answer). */
function mcp(ip: string, headers: Record<string, string> = {}, agent?: http.Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      `${server.baseUrl}/mcp`,
      {
        method: "POST",
        agent: agent ?? false,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", "x-forwarded-for": ip, ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      },
    );
    req.setTimeout(20_000, () => req.destroy());
    req.on("error", () => resolve(0));
    req.end(LOOKUP);
  });
}

const signMcp = (agent: { key: AgentKey; directory: DirectoryServer }) => signRequest(agent.key, agent.directory.origin, "POST", `${server.baseUrl}/mcp`);

/** `inFlight` unsigned lookups from `ip` at all times until stopped; their statuses counted. */
function flood(ip: string, inFlight: number): { statuses: Map<number, number>; stop: () => Promise<void> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const statuses = new Map<number, number>();
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      const status = await mcp(ip, {}, agent);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  const loops = Array.from({ length: inFlight }, () => loop());
  return {
    statuses,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

function registration(ip: string, headers: Record<string, string>, email = uniqueEmail()): Promise<Response> {
  return fetch(`${server.baseUrl}/agent/identity`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip, ...headers },
    body: JSON.stringify({ type: "service_auth", login_hint: email, client_name: "Share Test Agent" }),
  });
}

const tamper = (signed: Record<string, string>): Record<string, string> => ({ ...signed, signature: signed.signature!.replace(/:[A-Za-z0-9+/]{8}/, ":AAAAAAAA") });

describe("admission's share of a verified agent (npm start)", () => {
  it("two signed agents on one address each get their own share of the public lane while an unsigned flood from it is shed", async () => {
    const ip = freshIp();
    // The first signed request of each agent fetches its directory (in the handler); from then on it is cached.
    for (const agent of agents) expect(await mcp(ip, await signMcp(agent))).toBe(200);

    const unsigned = flood(ip, 32);
    try {
      await until(() => (unsigned.statuses.get(429) ?? 0) > 0, 15_000);
      expect(unsigned.statuses.get(429) ?? 0, JSON.stringify([...unsigned.statuses])).toBeGreaterThan(0);
      // Meanwhile every signed request from the same address is admitted under its agent's own share.
      const signed: number[] = [];
      for (let i = 0; i < 5; i++) for (const agent of agents) signed.push(await mcp(ip, await signMcp(agent)));
      expect(signed).toEqual(Array(10).fill(200));
    } finally {
      await unsigned.stop();
    }
    // The flood met its address's share (429) while it ran.
    expect(unsigned.statuses.get(429) ?? 0).toBeGreaterThan(0);
  });
});

describe("the listener's stamp (x-agent-gate-agent) is its own", () => {
  const forged = (origin: string, thumbprint = "forged-thumbprint") => ({ "x-agent-gate-agent": `verified ${thumbprint} ${origin}` });

  it("a client-sent stamp naming a verified agent is ignored: a bad signature is still refused, cached directory or not", async () => {
    const [agent] = agents;
    // Cached directory: the listener verifies and writes its own stamp over the client's.
    const cached = await registration(freshIp(), {
      ...tamper(await signRequest(agent!.key, agent!.directory.origin, "POST", `${server.baseUrl}/agent/identity`)),
      ...forged(agent!.directory.origin),
    });
    expect(cached.status).toBe(401);
    expect(((await cached.json()) as { error: string }).error).toBe("invalid_signature");
    // A directory never seen: the listener leaves the request to the handler, and the client's copy is gone.
    const fresh = await startDirectory([agent!.key]);
    others.push(fresh);
    const email = uniqueEmail();
    const uncached = await registration(
      freshIp(),
      { ...tamper(await signRequest(agent!.key, fresh.origin, "POST", `${server.baseUrl}/agent/identity`)), ...forged(fresh.origin) },
      email,
    );
    expect(uncached.status).toBe(401);
    expect(((await uncached.json()) as { error: string }).error).toBe("invalid_signature");
    expect(await getDb().registration.count({ where: { loginHint: email } })).toBe(0);
  });
});

describe("one verification per request (npm start)", () => {
  it("a signed registration with a nonce, its directory cached, is registered once with its origin and refused replayed_signature on the replay", async () => {
    const [, agent] = agents;
    const url = `${server.baseUrl}/agent/identity`;
    // Makes sure the directory is cached, so the listener is the one that verifies.
    expect((await registration(freshIp(), await signRequest(agent!.key, agent!.directory.origin, "POST", url))).status).toBe(200);
    const hits = agent!.directory.hits();
    const email = uniqueEmail();
    const signed = await signRequest(agent!.key, agent!.directory.origin, "POST", url);
    const first = await registration(freshIp(), signed, email);
    expect(first.status, await first.clone().text()).toBe(200);
    const replay = await registration(freshIp(), signed, email);
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { error: string }).error).toBe("replayed_signature");
    expect(await getDb().registration.findMany({ where: { loginHint: email }, select: { agentOrigin: true } })).toEqual([{ agentOrigin: agent!.directory.origin }]);
    expect(agent!.directory.hits()).toBe(hits);
  });
});
