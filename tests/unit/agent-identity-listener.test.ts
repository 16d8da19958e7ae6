// Issue 44 under `npm start`: server.ts's listener verifies a signed request once, with no network (only against a
// cached key directory), and stamps the result for the handler (lib/agent-identity listenerIdentity, agentStamp,
// stampedIdentity), which then never verifies it again: a nonce is accepted exactly once. Signed by Cloudflare's
// reference signer, against a real local directory.
import { calculateJwkThumbprint } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { agentIdentityOf, agentStamp, listenerIdentity, NONCE_SCOPE, parseAgentStamp, publicCaller, stampedIdentity, type AgentIdentity } from "@/lib/agent-identity";
import { DIRECTORY_REFETCH_SECONDS } from "@/lib/agent-identity/directory";
import { chargeCaller } from "@/lib/rate-limit/charge";
import type { ApiRequest } from "@/lib/http/api";
import { AGENT_HEADER } from "@/lib/http/client-ip";
import { markServerEntry } from "@/lib/http/server-entry";
import { configureFile } from "../support/config";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";

const BASE = "http://localhost:3000";
let key: AgentKey;
let directory: DirectoryServer;

beforeAll(async () => {
  configureFile({ BASE_URL: BASE, AGENT_DIRECTORY_ALLOW_PRIVATE: "1" });
  key = await newAgentKey();
  directory = await startDirectory([key]);
});
afterAll(() => directory.close());

const signMcp = () => signRequest(key, directory.origin, "POST", `${BASE}/mcp`);

function request(headers: Record<string, string>): ApiRequest {
  return { method: "POST", target: "/mcp", headers: new Headers(headers), readBody: () => Promise.reject(new Error("no body here")) };
}

describe("listenerIdentity: the listener's one verification", () => {
  it("leaves an unsigned request, and a signed one whose directory is not cached, to the handler, fetching nothing", async () => {
    expect(listenerIdentity("POST", "/mcp", new Headers({ "content-type": "application/json" }))).toBeUndefined();
    expect(listenerIdentity("POST", "/mcp", new Headers(await signMcp()))).toBeUndefined();
    expect(directory.hits()).toBe(0);
  });

  it("refuses a malformed signature at once, no directory needed", async () => {
    const found = listenerIdentity("POST", "/mcp", new Headers({ signature: "sig1=:AAAA:", "signature-input": "not a dictionary" }));
    expect(found).toBeDefined();
    expect(parseAgentStamp((await found!).stamp!)).toMatchObject({ kind: "invalid", reason: "invalid_signature" });
    expect((await found!).agentKey).toBeNull();
  });

  it("once the handler has cached the directory: verified with no fetch, under the agent's key; the same nonce again is a replay", async () => {
    expect(await agentIdentityOf(request(await signMcp()))).toMatchObject({ kind: "verified", origin: directory.origin });
    const hits = directory.hits();
    const headers = new Headers(await signMcp());
    const found = listenerIdentity("POST", "/mcp", headers);
    expect(found).toBeDefined();
    const thumbprint = await calculateJwkThumbprint(key.publicJwk as never, "sha256");
    expect(await found).toEqual({ stamp: `verified ${thumbprint} ${directory.origin}`, agentKey: `agent:${directory.origin}` });
    expect(parseAgentStamp((await listenerIdentity("POST", "/mcp", headers)!).stamp!)).toMatchObject({ kind: "invalid", reason: "replayed_signature" });
    expect(directory.hits()).toBe(hits);
  });

  it("leaves a keyid the cached directory lacks to the handler once a refetch is allowed (a rotated key), fetching nothing itself", async () => {
    const rotated = await newAgentKey();
    const signRotated = () => signRequest(rotated, directory.origin, "POST", `${BASE}/mcp`);
    // Within the cooldown of the directory's fetch: refused here, as the handler would.
    expect(parseAgentStamp((await listenerIdentity("POST", "/mcp", new Headers(await signRotated()))!).stamp!)).toMatchObject({ reason: "unknown_key" });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + DIRECTORY_REFETCH_SECONDS * 1000);
      directory.setKeys([key, rotated]);
      const hits = directory.hits();
      const headers = new Headers(await signRotated());
      expect(await listenerIdentity("POST", "/mcp", headers)).toEqual({ stamp: null, agentKey: null });
      expect(directory.hits()).toBe(hits);
      // The handler fetches the directory again and accepts the rotated key (and its nonce, once).
      expect(await agentIdentityOf(request(Object.fromEntries(headers)))).toMatchObject({ kind: "verified", origin: directory.origin });
      expect(directory.hits()).toBe(hits + 1);
    } finally {
      vi.useRealTimers();
      directory.setKeys([key]);
    }
  });
});

describe("publicCaller and chargeCaller: a nonce the handler verifies goes with the budget charge", () => {
  it("hands the nonce back unaccepted; the charge accepts it once, and counts a replay under the address", async () => {
    const headers = await signMcp();
    const first = await publicCaller(request(headers), "203.0.113.9");
    expect(first).toMatchObject({ key: `agent:${directory.origin}`, addressKey: "203.0.113.9", nonce: { scope: NONCE_SCOPE } });
    expect(await chargeCaller(first, (key) => [{ budget: "mcp", key, cost: 1 }])).toEqual({ refused: null, key: `agent:${directory.origin}` });
    // The same signed request again: verified again (the nonce is not checked there), refused by the charge's once-key.
    const replay = await publicCaller(request(headers), "203.0.113.9");
    expect(replay.key).toBe(`agent:${directory.origin}`);
    expect(await chargeCaller(replay, (key) => [{ budget: "mcp", key, cost: 1 }])).toEqual({ refused: null, key: "203.0.113.9" });
    // And the listener, which accepts nonces itself, sees it as a replay too.
    expect(parseAgentStamp((await listenerIdentity("POST", "/mcp", new Headers(headers))!).stamp!)).toMatchObject({ reason: "replayed_signature" });
  });

  it("answers an unsigned request synchronously, with the address's key", () => {
    const caller = publicCaller(request({ "content-type": "application/json" }), "203.0.113.10");
    expect(caller).toEqual({ key: "203.0.113.10", addressKey: "203.0.113.10" });
    expect(chargeCaller(caller as { key: string; addressKey: string }, (key) => [{ budget: "mcp", key, cost: 1 }])).toEqual({ refused: null, key: "203.0.113.10" });
  });
});

describe("the stamp", () => {
  it("reads back exactly what agentStamp writes, and nothing else", () => {
    const results: AgentIdentity[] = [
      { kind: "verified", origin: "https://agent.example", thumbprint: "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs" },
      { kind: "invalid", reason: "expired_signature", detail: "outside its window (“clock” 100% off), see: https://x.example/?a=b c" },
      { kind: "unsigned" },
    ];
    for (const result of results) expect(parseAgentStamp(agentStamp(result))).toEqual(result);
    for (const text of ["verified only-one", "verified a b c", "invalid made_up_reason x", "invalid invalid_signature %E0%A4%A", "agent https://a.example", "unsigned x", ""])
      expect(parseAgentStamp(text), text).toBeNull();
  });

  it("is believed only once server.ts has started the process, and then the handler does not verify again", async () => {
    // A stamp naming an agent on a request whose own signature is broken: verifying it would say invalid_signature.
    const signed = await signMcp();
    const broken = { ...signed, signature: signed.signature.replace(/:[A-Za-z0-9+/]{8}/, ":AAAAAAAA") };
    const stamp = agentStamp({ kind: "verified", origin: "https://stamped.example", thumbprint: "t" });
    const stamped = request({ ...broken, [AGENT_HEADER]: stamp });
    // A bare `next start`: the header is the client's own.
    expect(stampedIdentity(stamped.headers)).toBeNull();
    expect(await agentIdentityOf(stamped)).toMatchObject({ kind: "invalid", reason: "invalid_signature" });
    markServerEntry();
    expect(stampedIdentity(stamped.headers)).toEqual({ kind: "verified", origin: "https://stamped.example", thumbprint: "t" });
    expect(await agentIdentityOf(stamped)).toEqual({ kind: "verified", origin: "https://stamped.example", thumbprint: "t" });
  });
});
