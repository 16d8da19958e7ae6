// The A2A SDK's request handler is built once per process (lib/a2a/jsonrpc.ts) and each call's own state rides in
// its call context (lib/a2a/call.ts): concurrent calls of both generations share the handler, yet each call's
// tasks, address and count stay its own.
import { DefaultRequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { a2aCallOf } from "@/lib/a2a/call";
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { PEER_HEADER } from "@/lib/http/client-ip";
import { apiRequest, webResponse } from "../../support/api";
import { markServerEntry } from "@/lib/http/server-entry";

// These requests carry the socket address as server.ts's listener stamps it: play that entry.
markServerEntry();

function post(body: unknown, address: string, version?: string): Request {
  const headers: Record<string, string> = { "Content-Type": "application/json", [PEER_HEADER]: address };
  if (version) headers["A2A-Version"] = version;
  return new Request("http://localhost:3000/a2a", { method: "POST", headers, body: JSON.stringify(body) });
}

const legacySend = (n: number) => ({
  jsonrpc: "2.0",
  id: n,
  method: "message/send",
  params: { message: { kind: "message", role: "user", messageId: `legacy-${n}`, parts: [{ kind: "text", text: "get_community_stats" }] } },
});

const v1Send = (n: number) => ({
  jsonrpc: "2.0",
  id: n,
  method: "SendMessage",
  params: { message: { messageId: `v1-${n}`, role: "ROLE_USER", parts: [{ text: "verify_certificate AG-2025-0001" }] } },
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("one A2A handler per process, one state per call", () => {
  it("serves concurrent calls of both generations with one SDK handler, each call's task and count its own", async () => {
    const handlers = new Set<DefaultRequestHandler>();
    const original = DefaultRequestHandler.prototype.sendMessage;
    vi.spyOn(DefaultRequestHandler.prototype, "sendMessage").mockImplementation(function (this: DefaultRequestHandler, ...args) {
      handlers.add(this);
      return original.apply(this, args);
    });
    const clock = new ManualClock(Date.UTC(2026, 6, 1, 8, 0, 0));
    const calls = Array.from({ length: 12 }, (_, n) => {
      const address = `198.51.100.${n + 1}`;
      const request = n % 2 === 0 ? post(legacySend(n), address) : post(v1Send(n), address, "1.0");
      return handleA2aRequest(apiRequest(request), clock).then(async (reply) => ({ n, address, body: (await webResponse(reply).json()) as Record<string, unknown> }));
    });
    const answers = await Promise.all(calls);

    expect(handlers.size).toBe(1);
    const taskIds = answers.map(({ n, body }) => {
      const result = body["result"] as Record<string, unknown>;
      // 0.3 answers the task itself, 1.0 wraps it in { task }.
      const task = (n % 2 === 0 ? result : result["task"]) as { id: string; status: { state: string } };
      expect(task.status.state).toBe(n % 2 === 0 ? "completed" : "TASK_STATE_COMPLETED");
      return task.id;
    });
    expect(new Set(taskIds).size).toBe(12);
    const rows = await getDb().a2ATask.findMany({ where: { id: { in: taskIds } } });
    expect(rows.map((row) => row.state)).toEqual(Array(12).fill("completed"));
    expect(rows.every((row) => row.expiresAt.getTime() === Date.UTC(2026, 6, 2, 8, 0, 0))).toBe(true);
    // Each address was counted once, under its own key.
    const buckets = await getDb().rateLimitBucket.findMany({ where: { key: { contains: "198.51.100." } } });
    for (const { address } of answers) {
      expect(buckets.filter((bucket) => bucket.key.endsWith(`:${address}`)).map((bucket) => bucket.count)).toEqual([1]);
    }

    // A later call with the same clock reuses it; a call with another clock gets a handler whose tasks keep that time.
    await handleA2aRequest(apiRequest(post(legacySend(100), "198.51.100.100")), clock);
    expect(handlers.size).toBe(1);
    const later = new ManualClock(Date.UTC(2026, 7, 1, 8, 0, 0));
    const reply = (await webResponse(await handleA2aRequest(apiRequest(post(legacySend(101), "198.51.100.101")), later)).json()) as { result: { id: string } };
    expect(handlers.size).toBe(2);
    expect((await getDb().a2ATask.findUniqueOrThrow({ where: { id: reply.result.id } })).expiresAt).toEqual(new Date(Date.UTC(2026, 7, 2, 8, 0, 0)));
  });

  it("refuses a call context that carries no call (every context the handler sees is made by the route)", () => {
    expect(() => a2aCallOf(new ServerCallContext())).toThrow(/without its call/);
  });
});
