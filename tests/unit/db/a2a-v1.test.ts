// A2A 1.0 on the database (issue 15): hostile 1.0 requests and A2A-Version headers never get a 500 and write
// nothing unless a SendMessage ran; tasks of either generation are read by both; ListTasks forgets expired tasks.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { handleA2aRequest, JSONRPC_ERRORS } from "@/lib/a2a/jsonrpc";
import { apiRequest, webResponse } from "../../support/api";

const KNOWN_CODES = new Set<number>([...Object.values(JSONRPC_ERRORS), -32010, -32011]);

function post(body: string, version: string | undefined): Request {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (version !== undefined) headers["A2A-Version"] = version;
  return new Request("http://localhost:3000/a2a", { method: "POST", headers, body });
}

interface Answer {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

async function call(body: unknown, version: string | undefined, clock: ManualClock): Promise<Answer> {
  const res = webResponse(await handleA2aRequest(apiRequest(post(typeof body === "string" ? body : JSON.stringify(body), version)), clock));
  return { status: res.status, body: (await res.json()) as Answer["body"] };
}

const send = (text: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...extra } },
});

describe("hostile A2A 1.0 input", () => {
  it("never a 500, always a known code, and a task stored only when a SendMessage answered one", async () => {
    const clock = new ManualClock(Date.UTC(2026, 4, 1, 8, 0, 0));
    const hostile = fc.string({ unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom("\ud800", "\u0000", "\u202e")), maxLength: 16 });
    const value = fc.oneof(hostile, fc.integer(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
    const request = fc.record({
      // A header value is bytes, so visible Latin-1 text is all a client can send.
      version: fc.oneof(
        fc.constantFrom(undefined, "1.0", "0.3", "", "2.0", "1.0.0"),
        fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
      ),
      method: fc.constantFrom("SendMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask", "message/send", "tasks/get"),
      params: fc.oneof(
        value,
        fc.record({
          message: fc.record({ messageId: value, role: fc.constantFrom("ROLE_USER", "user", 3), parts: fc.array(fc.record({ text: value }), { maxLength: 2 }), taskId: value }),
        }),
        fc.record({ id: value, contextId: value, pageSize: value, pageToken: value, historyLength: value, status: value }, { requiredKeys: [] }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ version, method, params }) => {
        const before = await getDb().a2ATask.count();
        const answer = await call({ jsonrpc: "2.0", id: 1, method, params }, version, clock);
        expect([200, 429]).toContain(answer.status);
        const after = await getDb().a2ATask.count();
        if (answer.body.error) {
          expect(KNOWN_CODES.has(answer.body.error.code), JSON.stringify(answer.body.error)).toBe(true);
          expect(answer.body.error.message).not.toMatch(/prisma|sqlite|postgres|\/work\//i);
          expect(after).toBe(before);
        } else {
          expect(after - before).toBeLessThanOrEqual(method === "SendMessage" || method === "message/send" ? 1 : 0);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("tasks across generations and time", () => {
  it("a task sent in 1.0 is read in 0.3 and the other way round", async () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 1, 8, 0, 0));
    const v1 = (await call(send("get_community_stats"), "1.0", clock)).body.result?.["task"] as { id: string };
    const as03 = await call({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: v1.id } }, undefined, clock);
    expect(as03.body.result).toMatchObject({ kind: "task", id: v1.id, status: { state: "completed" }, artifacts: [{ parts: [{ kind: "data" }] }] });

    const legacy = await call(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "message/send",
        params: { message: { kind: "message", role: "user", messageId: "m-legacy", parts: [{ kind: "text", text: "get_community_stats" }] } },
      },
      undefined,
      clock,
    );
    const id = (legacy.body.result as { id: string }).id;
    const as10 = await call({ jsonrpc: "2.0", id: 4, method: "GetTask", params: { id } }, "1.0", clock);
    expect(as10.body.result).toMatchObject({ id, status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ data: { cache_max_age_seconds: 1200 } }] }] });
  });

  it("a row stored before 1.0 (the 0.3 shape) is still read by both generations", async () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 2, 8, 0, 0));
    const task = {
      kind: "task",
      id: "legacy-row-1",
      contextId: "legacy-ctx",
      status: { state: "completed", timestamp: "2026-07-02T08:00:00.000Z", message: { kind: "message", role: "agent", messageId: "a1", parts: [{ kind: "text", text: "{}" }] } },
      history: [{ kind: "message", role: "user", messageId: "u1", parts: [{ kind: "text", text: "get_community_stats" }] }],
      artifacts: [{ artifactId: "art-1", name: "get_community_stats result", parts: [{ kind: "data", data: { member_count: 7 } }] }],
      metadata: { skill: "get_community_stats" },
    };
    const now = new Date(clock.now());
    await getDb().a2ATask.create({
      data: {
        id: task.id,
        contextId: task.contextId,
        skill: "get_community_stats",
        state: "completed",
        task: JSON.stringify(task),
        createdAt: now,
        expiresAt: new Date(now.getTime() + 3600_000),
      },
    });
    const as03 = await call({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: task.id } }, undefined, clock);
    expect(as03.body.result).toMatchObject({ kind: "task", id: task.id, status: { state: "completed" }, artifacts: [{ parts: [{ kind: "data", data: { member_count: 7 } }] }] });
    const as10 = await call({ jsonrpc: "2.0", id: 2, method: "ListTasks", params: { contextId: "legacy-ctx", includeArtifacts: true } }, "1.0", clock);
    expect(as10.body.result).toMatchObject({
      tasks: [{ id: task.id, status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ parts: [{ data: { member_count: 7 } }] }] }],
      totalSize: 1,
    });
  });

  it("ListTasks shows a context's tasks for 24 hours, filters by time, then forgets them", async () => {
    const clock = new ManualClock(Date.UTC(2026, 7, 1, 8, 0, 0));
    const first = (await call(send("get_community_stats"), "1.0", clock)).body.result?.["task"] as { contextId: string };
    clock.advance(60);
    await call(send("get_community_stats", { contextId: first.contextId }), "1.0", clock);
    const list = async (extra: Record<string, unknown> = {}) =>
      (await call({ jsonrpc: "2.0", id: 5, method: "ListTasks", params: { contextId: first.contextId, ...extra } }, "1.0", clock)).body.result as { totalSize: number };
    expect((await list()).totalSize).toBe(2);
    expect((await list({ statusTimestampAfter: "2026-08-01T08:00:30Z" })).totalSize).toBe(1);
    expect((await list({ status: "TASK_STATE_COMPLETED" })).totalSize).toBe(2);
    clock.advance(24 * 3600 - 60);
    expect((await list()).totalSize).toBe(1);
    clock.advance(60);
    expect((await list()).totalSize).toBe(0);
  });
});
