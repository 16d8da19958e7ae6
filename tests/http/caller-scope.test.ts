// Issue 32: a caller cannot reach another caller's bucket or context. Two callers are two loopback addresses
// (the client socket bound to 127.0.0.11 or 127.0.0.12; the server listens on 127.0.0.1). Under `npm start`
// the key is the socket's address; A2A contexts a client chose are its caller's alone; a bare `next start`
// ignores a client-sent X-Agent-Gate-Peer, and refuses to start in production under TRUSTED_PROXY=none.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bareNextStart, stopBare, type BareStart } from "../support/bare-next";
import { startProblems } from "../support/log";

const base = inject("baseUrl");

interface Answer {
  status: number;
  body: string;
}

/** One POST from `localAddress` (a loopback address of this host), with no connection reuse. */
function post(url: string, body: unknown, headers: Record<string, string>, localAddress: string): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: target.port, path: target.pathname, method: "POST", localAddress, agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error("no answer within 15 s")));
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

interface RpcTask {
  id: string;
  contextId: string;
  history?: unknown[];
  artifacts?: unknown[];
}
type Rpc = { result?: Record<string, unknown>; error?: { code: number; message: string } };

async function rpc(body: unknown, from: string, version?: "1.0"): Promise<Rpc> {
  const answer = await post(`${base}/a2a`, body, version ? { "a2a-version": version } : {}, from);
  expect(answer.status, answer.body).toBe(200);
  return JSON.parse(answer.body) as Rpc;
}

const A = "127.0.0.11";
const B = "127.0.0.12";
let n = 0;

function sendV1(contextId: string): unknown {
  n += 1;
  return {
    jsonrpc: "2.0",
    id: n,
    method: "SendMessage",
    params: { message: { messageId: `scope-${Date.now()}-${n}`, role: "ROLE_USER", contextId, parts: [{ text: "get_community_stats" }] } },
  };
}

function listV1(contextId: string): unknown {
  return { jsonrpc: "2.0", id: "list", method: "ListTasks", params: { contextId, includeArtifacts: true } };
}

describe("A2A: a context the client chose is its caller's alone", () => {
  it("ListTasks from another address does not list it; its own caller does; GetTask by id works as documented", async () => {
    const contextId = `session-${Date.now()}`;
    const sent = await rpc(sendV1(contextId), A, "1.0");
    const task = sent.result?.["task"] as RpcTask;
    expect(task.contextId).toBe(contextId);

    const other = await rpc(listV1(contextId), B, "1.0");
    expect(other.result).toMatchObject({ tasks: [], totalSize: 0 });
    const own = await rpc(listV1(contextId), A, "1.0");
    expect((own.result?.["tasks"] as RpcTask[]).map((t) => t.id)).toEqual([task.id]);

    // B choosing the same id gets a context of its own: each lists only its own task.
    const bSent = await rpc(sendV1(contextId), B, "1.0");
    const bTask = bSent.result?.["task"] as RpcTask;
    expect(((await rpc(listV1(contextId), B, "1.0")).result?.["tasks"] as RpcTask[]).map((t) => t.id)).toEqual([bTask.id]);
    expect(((await rpc(listV1(contextId), A, "1.0")).result?.["tasks"] as RpcTask[]).map((t) => t.id)).toEqual([task.id]);

    // Task ids are the service's (unguessable): whoever holds one reads it, in both generations (content/docs/a2a.md).
    const got = await rpc({ jsonrpc: "2.0", id: "get", method: "GetTask", params: { id: task.id } }, B, "1.0");
    expect((got.result as unknown as RpcTask).id).toBe(task.id);
    const legacyGot = await rpc({ jsonrpc: "2.0", id: "get03", method: "tasks/get", params: { id: task.id } }, B);
    expect((legacyGot.result as unknown as RpcTask).contextId).toBe(contextId);
    // A made-up id finds nothing, from anyone.
    const missing = await rpc({ jsonrpc: "2.0", id: "miss", method: "tasks/get", params: { id: "session-1" } }, B);
    expect(missing.error?.code).toBe(-32001);
  });

  it("a context the service made is listed for whoever knows its id, as before", async () => {
    const sent = await rpc(sendV1(""), A, "1.0");
    const task = sent.result?.["task"] as RpcTask;
    expect(task.contextId).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await rpc(listV1(task.contextId), B, "1.0");
    expect((listed.result?.["tasks"] as RpcTask[]).map((t) => t.id)).toEqual([task.id]);
  });

  it("0.3.0: a message/send with a chosen contextId lands in the caller's own context", async () => {
    const contextId = `legacy-session-${Date.now()}`;
    const sent = await rpc(
      {
        jsonrpc: "2.0",
        id: "s03",
        method: "message/send",
        params: { message: { kind: "message", role: "user", messageId: `legacy-${Date.now()}`, contextId, parts: [{ kind: "text", text: "get_community_stats" }] } },
      },
      A,
    );
    expect((sent.result as unknown as RpcTask).contextId).toBe(contextId);
    expect((await rpc(listV1(contextId), B, "1.0")).result).toMatchObject({ tasks: [], totalSize: 0 });
    expect((await rpc(listV1(contextId), A, "1.0")).result).toMatchObject({ totalSize: 1 });
  });
});

const BATCH = { items: [{ id: "a", operation: "docs.ask", arguments: { query: "which scopes exist", top_k: 1 } }] };

/** Ten batch calls per minute per caller: the statuses of `count` calls with a rotating peer header. */
async function batchStatuses(url: string, count: number, from: string, headers: (i: number) => Record<string, string>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await post(`${url}/api/v1/batch`, BATCH, headers(i), from)).status);
  return statuses;
}

describe("npm start: the caller key is the socket address", () => {
  it("two addresses have two buckets; a forged peer header changes neither", async () => {
    const rotate = (i: number) => ({ "x-agent-gate-peer": `10.79.0.${i}` });
    expect(await batchStatuses(base, 11, "127.0.0.21", rotate)).toEqual([...Array<number>(10).fill(200), 429]);
    expect((await batchStatuses(base, 1, "127.0.0.22", rotate))[0]).toBe(200);
  });
});

describe("a bare `next start` (no server.ts)", () => {
  let running: BareStart | undefined;
  beforeAll(async () => {
    // Outside production the start check does not apply: this shows the header itself is ignored.
    running = await bareNextStart("none", "test");
    // Next answers once instrumentation's checks are done; the first request waits for them.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await post(`${running.url}/api/health-probe-not-a-route`, {}, {}, "127.0.0.1");
        break;
      } catch (error) {
        if (Date.now() > deadline || running.child.exitCode !== null) throw new Error(`next start did not answer: ${String(error)}\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }, 90_000);
  afterAll(() => stopBare(running));

  it("in production under TRUSTED_PROXY=none refuses to start, with one line naming TRUSTED_PROXY and the fix", async () => {
    const refused = await bareNextStart("none");
    const timer = setTimeout(() => refused.child.kill("SIGKILL"), 60_000);
    const code = await refused.exited;
    clearTimeout(timer);
    expect(startProblems(refused.output()), refused.output()).toEqual([expect.stringMatching(/^Invalid configuration: TRUSTED_PROXY is none, .*`npm start`.*number of proxies/)]);
    expect(code).toBe(1);
  }, 90_000);

  it("ignores a client-sent X-Agent-Gate-Peer: rotating it picks no bucket of its own", async () => {
    // Nothing stamped the socket address: every request is in the strict no-address bucket (a tenth: 1 a minute).
    const statuses = await batchStatuses(running!.url, 11, "127.0.0.1", (i) => ({ "x-agent-gate-peer": `10.77.0.${i}` }));
    expect(statuses).toEqual([200, ...Array<number>(10).fill(429)]);
  });
});
