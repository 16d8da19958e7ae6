// A2A tasks live in the database for 24 hours, so every instance answers tasks/get within that window.
import { describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { getDb } from "@/lib/db/prisma";
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { apiRequest, webResponse } from "../../support/api";

function post(body: unknown): Request {
  return new Request("http://localhost:3000/a2a", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

async function call(body: unknown, clock: ManualClock): Promise<{ result?: { id: string; status: { state: string } }; error?: { code: number } }> {
  const res = webResponse(await handleA2aRequest(apiRequest(post(body)), clock));
  expect(res.status).toBe(200);
  return (await res.json()) as { result?: { id: string; status: { state: string } }; error?: { code: number } };
}

describe("A2A task store", () => {
  it("keeps a task readable for 24 hours, then forgets it", async () => {
    const clock = new ManualClock(Date.UTC(2026, 4, 1, 8, 0, 0));
    const sent = await call(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text: "get_community_stats" }] } },
      },
      clock,
    );
    const taskId = sent.result!.id;
    expect(sent.result!.status.state).toBe("completed");
    const row = await getDb().a2ATask.findUnique({ where: { id: taskId } });
    expect(row).toMatchObject({ skill: "get_community_stats", state: "completed", expiresAt: new Date(Date.UTC(2026, 4, 2, 8, 0, 0)) });

    clock.advance(24 * 3600 - 1);
    expect((await call({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: taskId } }, clock)).result?.id).toBe(taskId);
    clock.advance(1);
    expect((await call({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: taskId } }, clock)).error?.code).toBe(-32001);
  });

  it("prunes expired tasks as new ones finish", async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1, 8, 0, 0));
    const message = (id: string) => ({
      jsonrpc: "2.0",
      id,
      method: "message/send",
      params: { message: { kind: "message", role: "user", messageId: id, parts: [{ kind: "text", text: "verify_certificate AG-2025-0001" }] } },
    });
    const old = (await call(message("old"), clock)).result!.id;
    clock.advance(2 * 24 * 3600);
    await call(message("new"), clock);
    expect(await getDb().a2ATask.findUnique({ where: { id: old } })).toBeNull();
  });
});
