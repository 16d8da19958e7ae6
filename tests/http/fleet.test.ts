// Issue 50: a fleet. Two `npm start` instances of this build on one PostgreSQL database, with the same BASE_URL and
// one client alternating between them, first without Redis (the postgres store), then with a real redis-server
// started here (the redis store), killed mid-test and started again. What was per instance before (README "Limits")
// holds for the fleet: lookups and JWT-bearer exchanges are counted once, a signed registration or a DPoP proof
// (issue 52) replayed on the other instance is refused, a revocation on one is seen on the other; with Redis gone both
// keep answering (never a 5xx), /readyz says degraded and stays ready, one warn line per change; with Redis back the fleet counts together again.
//
// PostgreSQL only: an SQLite file is one instance's database (npm test's PostgreSQL pass runs this file).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unsyncedCap } from "@/lib/shared-state/postgres";
import { approvedTokens, freshIp, JWT_BEARER_GRANT, uniqueEmail, useServerDatabase } from "../support/agent-auth";
import { freshDatabase, testProvider } from "../support/databases";
import { newDpopKey, readTwiceWithOneProof, signProof } from "../support/dpop";
import { startRedis, type TestRedis } from "../support/redis";
import { freePort, startServer, type TestServer } from "../support/server";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";

const LOOKUPS = 20;
const EXCHANGES = 10;
const ENV = {
  TRUSTED_PROXY: "1",
  AGENT_DIRECTORY_ALLOW_PRIVATE: "1",
  RATE_LIMIT_LOOKUPS_PER_MINUTE: String(LOOKUPS),
  RATE_LIMIT_TOKEN_EXCHANGE_PER_MINUTE: String(EXCHANGES),
  // A deadline a busy CI machine keeps (the default is 50 ms): a late call would be counted by the fallback too.
  SHARED_STATE_DEADLINE_MS: "250",
};

interface Fleet {
  instances: [TestServer, TestServer];
  /** The one public origin both advertise (BASE_URL), as behind a balancer. */
  origin: string;
}

let databaseUrl: string;
let key: AgentKey;
let directory: DirectoryServer;

async function startFleet(extra: Record<string, string> = {}): Promise<Fleet> {
  const origin = `http://localhost:${await freePort()}`;
  const env = { ...ENV, BASE_URL: origin, ...extra };
  // One after the other: the first start writes the generated signing key and secret, the second reads them.
  const first = await startServer({ label: "fleet", databaseUrl, env });
  const second = await startServer({ label: "fleet", databaseUrl, env });
  return { instances: [first, second], origin };
}

async function stopFleet(fleet: Fleet | undefined): Promise<void> {
  if (fleet) await Promise.all(fleet.instances.map((server) => server.stop()));
}

/** The instance a request goes to: the balancer alternates. */
const nth = (fleet: Fleet, i: number): TestServer => fleet.instances[i % 2]!;

async function lookup(server: TestServer, ip: string, id: number): Promise<number> {
  const res = await fetch(`${server.baseUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", "x-forwarded-for": ip },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "lookup_member", arguments: { name_or_slug: "ada-lovelace" } } }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Lookups from one address, alternating between the instances, one at a time: how many were served. */
async function servedLookups(fleet: Fleet, count: number): Promise<number> {
  const ip = freshIp();
  let served = 0;
  for (let i = 0; i < count; i++) {
    const status = await lookup(nth(fleet, i), ip, i);
    expect([200, 429]).toContain(status);
    if (status === 200) served += 1;
  }
  return served;
}

/** JWT-bearer exchanges of one assertion, alternating: how many were served. */
async function servedExchanges(fleet: Fleet, count: number): Promise<number> {
  const { tokens } = await approvedTokens(fleet.instances[0].baseUrl);
  let served = 0;
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${nth(fleet, i).baseUrl}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp() },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource: `${fleet.origin}/api` }).toString(),
    });
    const body = (await res.json()) as { error?: string };
    expect([200, 429], JSON.stringify(body)).toContain(res.status);
    if (res.status === 200) served += 1;
  }
  return served;
}

/** A registration signed for the fleet's origin, accepted by the first instance, replayed byte for byte on the second. */
async function replayOnTheOther(fleet: Fleet): Promise<{ first: number; replay: { status: number; error: string } }> {
  const body = JSON.stringify({ type: "service_auth", login_hint: uniqueEmail(), client_name: "Fleet Agent" });
  const signature = await signRequest(key, directory.origin, "POST", `${fleet.origin}/agent/identity`);
  const send = (server: TestServer) =>
    fetch(`${server.baseUrl}/agent/identity`, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...signature }, body });
  const first = await send(fleet.instances[0]);
  await first.arrayBuffer();
  const replay = await send(fleet.instances[1]);
  return { first: first.status, replay: { status: replay.status, error: ((await replay.json()) as { error: string }).error } };
}

/**
 * Issue 52: a DPoP-bound token (a JWT-bearer exchange with a proof, on the first instance), then one read proof sent to
 * the first instance and replayed byte for byte on the second: its jti is accepted once for the fleet.
 */
async function dpopReplayOnTheOther(fleet: Fleet): Promise<{ first: number; replay: { status: number; error: string; description: string } }> {
  const { tokens } = await approvedTokens(fleet.instances[0].baseUrl);
  const dpopKey = await newDpopKey("EdDSA");
  const exchange = await fetch(`${fleet.instances[0].baseUrl}/oauth2/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": freshIp(),
      dpop: await signProof(dpopKey, { htm: "POST", htu: `${fleet.origin}/oauth2/token` }),
    },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: tokens.identity_assertion, resource: `${fleet.origin}/api` }).toString(),
  });
  const bound = (await exchange.json()) as { access_token: string; token_type: string };
  expect(bound.token_type, JSON.stringify(bound)).toBe("DPoP");
  // The proof names the shared BASE_URL and this token, so either instance alone would accept it.
  const [first, replay] = await readTwiceWithOneProof(fleet.origin, [fleet.instances[0].baseUrl, fleet.instances[1].baseUrl], dpopKey, bound.access_token);
  await first.arrayBuffer();
  const body = (await replay.json()) as { error: string; error_description: string };
  return { first: first.status, replay: { status: replay.status, error: body.error, description: body.error_description } };
}

const DPOP_REPLAY_REFUSED = { first: 200, replay: { status: 401, error: "invalid_dpop_proof", description: expect.stringMatching(/jti was already used/) } };

/** A token revoked through one instance is refused by the other at once. */
async function revokedEverywhere(fleet: Fleet): Promise<number[]> {
  const { tokens } = await approvedTokens(fleet.instances[0].baseUrl);
  const read = (server: TestServer) => fetch(`${server.baseUrl}/api/v1/agent/account`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((res) => res.status);
  const before = await read(fleet.instances[1]);
  const revoked = await fetch(`${fleet.instances[0].baseUrl}/oauth2/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: tokens.access_token }).toString(),
  });
  return [before, revoked.status, await read(fleet.instances[1]), await read(fleet.instances[0])];
}

interface Readiness {
  status: number;
  body: { status: string; checks: { shared_state: string }; shared_state_store: string };
}

async function readiness(server: TestServer): Promise<Readiness> {
  const res = await fetch(`${server.baseUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness["body"] };
}

/** Waits (up to 15 s; /readyz answers are reused for a second) until every instance reports `condition`. */
async function untilShared(fleet: Fleet, condition: "ok" | "degraded"): Promise<Readiness[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answers = await Promise.all(fleet.instances.map(readiness));
    if (answers.every((answer) => answer.body.checks.shared_state === condition) || Date.now() > deadline) return answers;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The shared-state warn lines an instance wrote. */
function stateLines(server: TestServer): { level: string; condition: string }[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.includes('"type":"shared_state"'))
    .map((line) => JSON.parse(line) as { level: string; condition: string });
}

describe.skipIf(testProvider() !== "postgres")("a fleet of two instances on one PostgreSQL database (PostgreSQL pass only: an SQLite file serves one instance)", () => {
  beforeAll(async () => {
    databaseUrl = await freshDatabase("fleet");
    useServerDatabase(databaseUrl);
    key = await newAgentKey();
    directory = await startDirectory([key]);
  });
  afterAll(() => directory?.close());

  describe("without Redis: the postgres store", () => {
    let fleet: Fleet | undefined;
    beforeAll(async () => {
      fleet = await startFleet();
    }, 180_000);
    afterAll(() => stopFleet(fleet));

    it("counts lookups and exchanges once for the fleet (within the documented overshoot of counting in batches)", async () => {
      const lookups = await servedLookups(fleet!, 2 * LOOKUPS);
      expect(lookups).toBeGreaterThanOrEqual(LOOKUPS);
      expect(lookups).toBeLessThanOrEqual(LOOKUPS + 2 * unsyncedCap(LOOKUPS));
      const exchanges = await servedExchanges(fleet!, 2 * EXCHANGES);
      expect(exchanges).toBeGreaterThanOrEqual(EXCHANGES);
      expect(exchanges).toBeLessThanOrEqual(EXCHANGES + 2 * unsyncedCap(EXCHANGES));
    });

    it("refuses a signed registration and a DPoP proof replayed on the other instance, and sees a revocation on either", async () => {
      expect(await replayOnTheOther(fleet!)).toEqual({ first: 200, replay: { status: 401, error: "replayed_signature" } });
      expect(await dpopReplayOnTheOther(fleet!)).toEqual(DPOP_REPLAY_REFUSED);
      expect(await revokedEverywhere(fleet!)).toEqual([200, 200, 401, 401]);
    });

    it("says which store holds the fleet's state on /readyz", async () => {
      for (const answer of await Promise.all(fleet!.instances.map(readiness))) {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ status: "ok", checks: { shared_state: "ok" }, shared_state_store: "postgres" });
      }
    });
  });

  describe("with Redis: the redis store, Redis stopped and started mid-test", () => {
    let fleet: Fleet | undefined;
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
      fleet = await startFleet({ REDIS_URL: redis.url });
    }, 180_000);
    afterAll(async () => {
      await stopFleet(fleet);
      await redis?.stop();
    });

    it("counts lookups and exchanges exactly once for the fleet, refuses a replay on the other instance, sees a revocation", async () => {
      expect(await servedLookups(fleet!, 2 * LOOKUPS)).toBe(LOOKUPS);
      expect(await servedExchanges(fleet!, 2 * EXCHANGES)).toBe(EXCHANGES);
      expect(await replayOnTheOther(fleet!)).toEqual({ first: 200, replay: { status: 401, error: "replayed_signature" } });
      expect(await dpopReplayOnTheOther(fleet!)).toEqual(DPOP_REPLAY_REFUSED);
      expect(await revokedEverywhere(fleet!)).toEqual([200, 200, 401, 401]);
      for (const answer of await Promise.all(fleet!.instances.map(readiness))) expect(answer.body).toMatchObject({ checks: { shared_state: "ok" }, shared_state_store: "redis" });
    });

    it("keeps answering with Redis killed mid-burst (no 5xx), reports degraded and stays ready; back, it counts together again", async () => {
      // A burst on both instances, Redis killed in its middle: every answer is a 200 or a 429, never a 5xx.
      const ip = freshIp();
      const burst = Array.from({ length: 60 }, (_, i) => lookup(nth(fleet!, i), ip, i));
      await new Promise((r) => setTimeout(r, 20));
      await redis.kill();
      const statuses = await Promise.all(burst);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);

      const degraded = await untilShared(fleet!, "degraded");
      for (const answer of degraded) expect(answer).toMatchObject({ status: 200, body: { status: "ok", checks: { shared_state: "degraded" }, shared_state_store: "redis" } });
      // Meanwhile each instance counts alone, in memory: never a 5xx, a caller is still limited on each.
      const alone = await servedLookups(fleet!, 3 * LOOKUPS);
      expect(alone).toBeGreaterThanOrEqual(LOOKUPS);
      expect(alone).toBeLessThanOrEqual(2 * LOOKUPS);
      // Nonces and proof jtis fall back to PostgreSQL, which both instances share: a replay is still refused.
      expect(await replayOnTheOther(fleet!)).toEqual({ first: 200, replay: { status: 401, error: "replayed_signature" } });
      expect(await dpopReplayOnTheOther(fleet!)).toEqual(DPOP_REPLAY_REFUSED);

      await redis.restart();
      const back = await untilShared(fleet!, "ok");
      for (const answer of back) expect(answer.body).toMatchObject({ checks: { shared_state: "ok" }, shared_state_store: "redis" });
      expect(await servedLookups(fleet!, 2 * LOOKUPS)).toBe(LOOKUPS);
      expect(await replayOnTheOther(fleet!)).toEqual({ first: 200, replay: { status: 401, error: "replayed_signature" } });
      // One warn line per change of state on each instance: degraded once, back once.
      for (const server of fleet!.instances)
        expect(stateLines(server)).toEqual([expect.objectContaining({ level: "warn", condition: "degraded" }), expect.objectContaining({ level: "warn", condition: "ok" })]);
    });
  });
});
