// The agent card serves both A2A generations (issue 15): the 0.3.0 fields and 1.0's supportedInterfaces, signed
// (JWS over the RFC 8785 canonical card) with the service's Ed25519 key, which the 1.x SDK's verifier checks against
// the JWKS fetched over HTTP. In private release mode there is no public JWKS: the card is served unsigned. That
// server also checks the per-address SendMessage limit.
import { randomUUID } from "node:crypto";
import { AgentCard, verifyAgentCardSignature } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { TestServer } from "../support/server";
import { freshIp, startAuthServer, useServerDatabase } from "../support/agent-auth";

const base = inject("baseUrl");

interface CardJson extends Record<string, unknown> {
  supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
  signatures?: { protected: string; signature: string }[];
}

async function fetchCard(root: string, path = "/.well-known/agent-card.json"): Promise<CardJson> {
  const res = await fetch(`${root}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as CardJson;
}

/** The verifier's key lookup: the JWKS fetched over HTTP from the `jku` the signature names, the key by `kid`. */
async function keyFromJwks(kid: string, jku?: string) {
  expect(jku).toBe(`${base}/.well-known/jwks.json`);
  const jwks = (await (await fetch(jku!)).json()) as { keys: (JWK & { kid: string })[] };
  const jwk = jwks.keys.find((key) => key.kid === kid);
  if (!jwk) throw new Error(`no key ${kid} in the JWKS`);
  // A CryptoKey, as a verifier holding a fetched JWK would make it.
  return (await importJWK(jwk, "EdDSA")) as CryptoKey;
}

describe("the agent card (public release mode)", () => {
  it("keeps the 0.3.0 fields and lists the 1.0 and 0.3 JSON-RPC interfaces", async () => {
    const card = await fetchCard(base);
    expect(card).toMatchObject({
      protocolVersion: "0.3.0",
      url: `${base}/a2a`,
      preferredTransport: "JSONRPC",
      additionalInterfaces: [{ url: `${base}/a2a`, transport: "JSONRPC" }],
    });
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(await fetchCard(base, "/.well-known/agent")).toEqual(card);
  });

  it("is signed: the 1.x SDK's verifyAgentCardSignature accepts it with our JWKS, and refuses a changed card", async () => {
    const card = await fetchCard(base);
    expect(card.signatures).toHaveLength(1);
    const header = JSON.parse(Buffer.from(card.signatures![0]!.protected, "base64url").toString("utf8")) as Record<string, unknown>;
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(header).toEqual({ alg: "EdDSA", typ: "JOSE", kid: jwks.keys[0]!.kid, jku: `${base}/.well-known/jwks.json` });

    const verify = verifyAgentCardSignature(keyFromJwks);
    await expect(verify(AgentCard.fromJSON(card))).resolves.toBeUndefined();
    const tampered = { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: "https://attacker.example/a2a" })) };
    await expect(verify(AgentCard.fromJSON(tampered))).rejects.toThrow(/No valid signatures/);
    // The client checks it too, through the card it resolved.
    const client = await new ClientFactory().createFromUrl(base);
    await expect(client.getAgentCard(undefined, verify)).resolves.toMatchObject({ name: card["name"] });
  });
});

describe("private release mode", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startAuthServer({ RELEASE_MODE: "private", RATE_LIMIT_A2A_MESSAGE_SEND_PER_10_MINUTES: "2" });
    useServerDatabase(server.databaseUrl);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the card unsigned (no public JWKS could verify it) with both interfaces; the 1.x client still works", async () => {
    const card = await fetchCard(server.baseUrl);
    expect(card).not.toHaveProperty("signatures");
    expect(card.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(["1.0", "0.3"]);
    expect(JSON.stringify(card)).not.toContain("jwks");
    expect((await fetch(`${server.baseUrl}/.well-known/jwks.json`)).status).toBe(404);
    const client = await new ClientFactory().createFromUrl(server.baseUrl);
    expect(client.protocolVersion).toBe("1.0");
  });

  it("SendMessage spends the per-address message limit with message/send: over it -32010, HTTP 429, Retry-After, nothing stored", async () => {
    const { getDb } = await import("@/lib/db/prisma");
    const ip = freshIp();
    const post = (body: unknown, version?: string) =>
      fetch(`${server.baseUrl}/a2a`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": ip, ...(version ? { "A2A-Version": version } : {}) },
        body: JSON.stringify(body),
      });
    const v1 = { jsonrpc: "2.0", id: "one", method: "SendMessage", params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "get_community_stats" }] } } };
    const v03 = {
      jsonrpc: "2.0",
      id: 2,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "get_community_stats" }] } },
    };
    expect((await post(v1, "1.0")).status).toBe(200);
    expect((await post(v03)).status).toBe(200);
    const before = await getDb().a2ATask.count();
    for (const [body, version] of [
      [v1, "1.0"],
      [v03, undefined],
    ] as const) {
      const refused = await post(body, version);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: body.id, error: { code: -32010 } });
    }
    expect(await getDb().a2ATask.count()).toBe(before);
  });

  it("a skill that writes is counted before it runs: register_agent over the limit registers nothing (a read-only skill's count is taken with its task write)", async () => {
    const { getDb } = await import("@/lib/db/prisma");
    const ip = freshIp();
    const send = (skill: string, input: unknown) =>
      fetch(`${server.baseUrl}/a2a`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": ip, "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "SendMessage",
          params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ data: { skill, input } }] } },
        }),
      });
    // Two read-only sends fill the window (limit 2), each stored; the third send of either kind is refused.
    for (let i = 0; i < 2; i++) expect(await (await send("get_community_stats", {})).json()).toMatchObject({ result: { task: { status: { state: "TASK_STATE_COMPLETED" } } } });
    const agentName = `Limited Agent ${randomUUID().slice(0, 8)}`;
    const tasksBefore = await getDb().a2ATask.count();
    const refused = await send("register_agent", { agent_name: agentName, user_authorized: true });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32010 } });
    expect(await getDb().agentNamePreRegistration.count({ where: { agentName } })).toBe(0);
    expect((await send("get_community_stats", {})).status).toBe(429);
    expect(await getDb().a2ATask.count()).toBe(tasksBefore);
  });
});
