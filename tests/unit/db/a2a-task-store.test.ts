// The A2A task store of one request (lib/a2a/task-store.ts): a task the request creates is not looked up in
// the database before its first save (the SDK loads every task before merging an event into it; for a task id
// it has just drawn that query could find nothing), while every other id is still read from the database.
// writeTasks writes many tasks in one statement, each task once in its last state.
import { describe, expect, it } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { DbTaskStore, writeTasks } from "@/lib/a2a/task-store";
import { ManualClock } from "@/lib/clock";
import { query, readDate } from "@/lib/db";
import { queryPlans } from "../../support/query-plans";
import { sqlRunDuring } from "../../support/sql-trace";

function task(id: string, state = TaskState.TASK_STATE_COMPLETED): Task {
  return {
    id,
    contextId: `ctx-${id}`,
    status: { state, message: undefined, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: { skill: "get_community_stats" },
  };
}

describe("DbTaskStore", () => {
  it("answers a created task's first load without the database, then from the request's own saves; other ids from the database", async () => {
    const clock = new ManualClock(new Date(Date.UTC(2026, 10, 1)));
    // A row the created-task shortcut must not read: were the load to query, it would find this one.
    await writeTasks([{ task: task("stored-elsewhere"), at: clock.now() }]);
    await writeTasks([{ task: task("other-task"), at: clock.now() }]);

    const store = new DbTaskStore(clock);
    store.noteCreated("stored-elsewhere");
    expect(await store.load("stored-elsewhere")).toBeUndefined();
    expect((await store.load("other-task"))?.id).toBe("other-task");

    await store.save(task("stored-elsewhere", TaskState.TASK_STATE_WORKING));
    expect((await store.load("stored-elsewhere"))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const writes = store.takeWrites();
    expect(writes.map((write) => write.task.id)).toEqual(["stored-elsewhere"]);
    expect(store.takeWrites()).toEqual([]);
    await writeTasks(writes);
    expect((await new DbTaskStore(clock).load("stored-elsewhere"))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
  });

  it("writes many tasks in one call, past one statement's 64 rows; a task named twice keeps its last state", async () => {
    const clock = new ManualClock(new Date(Date.UTC(2026, 10, 2)));
    const ids = Array.from({ length: 150 }, (_, i) => `bulk-${i}`);
    const writes = ids.map((id) => ({ task: task(id, TaskState.TASK_STATE_WORKING), at: clock.now() }));
    writes.push({ task: task("bulk-7", TaskState.TASK_STATE_COMPLETED), at: clock.now() });
    await writeTasks(writes);
    const rows = await query<{ id: string; state: string }>(`SELECT "id", "state" FROM "A2ATask" WHERE "id" LIKE 'bulk-%'`);
    expect(rows).toHaveLength(150);
    expect(new Map(rows.map((row) => [row.id, row.state])).get("bulk-7")).toBe("completed");
    expect(rows.filter((row) => row.state === "working")).toHaveLength(149);
    // An existing row takes the new state and content; its creation stays.
    clock.advance(60);
    await writeTasks([{ task: task("bulk-0", TaskState.TASK_STATE_CANCELED), at: clock.now() }]);
    const [row] = await query<{ state: string; createdAt: unknown }>(`SELECT "state", "createdAt" FROM "A2ATask" WHERE "id" = 'bulk-0'`);
    expect(row?.state).toBe("canceled");
    expect(readDate(row?.createdAt).getTime()).toBe(Date.UTC(2026, 10, 2));
    expect((await new DbTaskStore(clock).load("bulk-0"))?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("lists one context's tasks through an index, never reading the whole table (ListTasks is anonymous)", async () => {
    const clock = new ManualClock(new Date(Date.UTC(2026, 10, 3)));
    await writeTasks(Array.from({ length: 3 }, (_, i) => ({ task: { ...task(`listed-${i}`), contextId: "ctx-listed" }, at: clock.now() })));
    const store = new DbTaskStore(clock);
    let pageToken = "";
    const statements = await sqlRunDuring(async () => {
      const first = await store.list({
        tenant: "",
        contextId: "ctx-listed",
        pageSize: 2,
        pageToken: "",
        historyLength: 0,
        status: TaskState.TASK_STATE_COMPLETED,
        statusTimestampAfter: "2026-11-01T00:00:00Z",
        includeArtifacts: false,
      });
      expect(first.tasks).toHaveLength(2);
      expect(first.totalSize).toBe(3);
      pageToken = first.nextPageToken;
      const second = await store.list({
        tenant: "",
        contextId: "ctx-listed",
        pageSize: 2,
        pageToken,
        historyLength: 0,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      });
      expect(second.tasks).toHaveLength(1);
    });
    const reads = [...new Set(statements.filter((sql) => /^\s*SELECT\b/i.test(sql)))];
    expect(reads.length).toBeGreaterThanOrEqual(3);
    // Every read finds the context through its index (the expiry's index would read every live task).
    for (const plan of await queryPlans(reads)) expect(plan).toContain("A2ATask_contextId_createdAt_idx");
  });

  it("a context the client chose is listed for its caller only; one the service made for whoever knows it (issue 32)", async () => {
    const clock = new ManualClock(new Date(Date.UTC(2026, 10, 4)));
    const listOf = async (callerKey: string, contextId: string) =>
      (
        await new DbTaskStore(clock, callerKey).list({
          tenant: "",
          contextId,
          pageSize: 10,
          pageToken: "",
          historyLength: 0,
          status: TaskState.TASK_STATE_UNSPECIFIED,
          statusTimestampAfter: undefined,
          includeArtifacts: false,
        })
      ).tasks.map((t) => t.id);
    // 127.0.0.11 chose "session-1"; the service made "made-ctx" for a task of 127.0.0.11.
    const chosen = new DbTaskStore(clock, "127.0.0.11", "session-1");
    await chosen.save({ ...task("chosen-a"), contextId: "session-1" });
    await writeTasks(chosen.takeWrites());
    const made = new DbTaskStore(clock, "127.0.0.11");
    await made.save({ ...task("made-a"), contextId: "made-ctx" });
    await writeTasks(made.takeWrites());
    // 127.0.0.12 chose "session-1" too: its own context, not the other caller's.
    const other = new DbTaskStore(clock, "127.0.0.12", "session-1");
    await other.save({ ...task("chosen-b"), contextId: "session-1" });
    await writeTasks(other.takeWrites());

    expect(await listOf("127.0.0.11", "session-1")).toEqual(["chosen-a"]);
    expect(await listOf("127.0.0.12", "session-1")).toEqual(["chosen-b"]);
    expect(await listOf("127.0.0.13", "session-1")).toEqual([]);
    expect(await listOf("127.0.0.12", "made-ctx")).toEqual(["made-a"]);
    // The stored key itself names nobody else's context; the task keeps the id its client chose.
    const [row] = await query<{ contextId: string }>(`SELECT "contextId" FROM "A2ATask" WHERE "id" = $1`, ["chosen-a"]);
    expect(await listOf("127.0.0.12", row!.contextId)).toEqual([]);
    expect(await listOf("127.0.0.11", row!.contextId)).toEqual([]);
    expect((await new DbTaskStore(clock, "127.0.0.12").load("chosen-a"))?.contextId).toBe("session-1");
  });
});
