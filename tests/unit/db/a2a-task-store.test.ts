// The A2A task store of one request (lib/a2a/task-store.ts): a task the request creates is not looked up in
// the database before its first save (the SDK loads every task before merging an event into it; for a task id
// it has just drawn that query could find nothing), while every other id is still read from the database.
import { describe, expect, it } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { DbTaskStore } from "@/lib/a2a/task-store";
import { ManualClock } from "@/lib/clock";

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
    await new DbTaskStore(clock).save(task("stored-elsewhere"));
    await new DbTaskStore(clock).save(task("other-task"));

    const store = new DbTaskStore(clock, "at-flush");
    store.noteCreated("stored-elsewhere");
    expect(await store.load("stored-elsewhere")).toBeUndefined();
    expect((await store.load("other-task"))?.id).toBe("other-task");

    await store.save(task("stored-elsewhere", TaskState.TASK_STATE_WORKING));
    expect((await store.load("stored-elsewhere"))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await store.flush();
    expect((await new DbTaskStore(clock).load("stored-elsewhere"))?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
  });
});
