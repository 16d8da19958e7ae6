// lib/a2a/request-handler.ts: the SDK's request handler, with time-ordered ids for the tasks and contexts it starts. Run against
// the SDK's own in-memory task store and a minimal executor, so these tests fail if an SDK update stops building its
// RequestContext in the method the class takes over (the ids would be random UUIDs again).
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { AgentEvent, InMemoryTaskStore, ServerCallContext, UnauthenticatedUser, type AgentExecutor, type RequestContext } from "@a2a-js/sdk/server";
import { describe, expect, it } from "vitest";
import { sdkAgentCard } from "@/lib/a2a/card";
import { TimeOrderedTaskRequestHandler } from "@/lib/a2a/request-handler";
import { firstTimeOrderedIdAt } from "@/lib/ids";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Publishes the task it is given an id for, then an input-required status (so a second message may follow). */
class RecordingExecutor implements AgentExecutor {
  readonly seen: { taskId: string; contextId: string; messageTaskId: string; hadTask: boolean }[] = [];

  async execute(requestContext: RequestContext, eventBus: Parameters<AgentExecutor["execute"]>[1]): Promise<void> {
    const { taskId, contextId, userMessage } = requestContext;
    this.seen.push({ taskId, contextId, messageTaskId: userMessage.taskId, hadTask: requestContext.task !== undefined });
    const status = { state: TaskState.TASK_STATE_INPUT_REQUIRED, message: undefined, timestamp: new Date().toISOString() };
    if (!requestContext.task) eventBus.publish(AgentEvent.task({ id: taskId, contextId, status, artifacts: [], history: [userMessage], metadata: {} }));
    else eventBus.publish(AgentEvent.statusUpdate({ taskId, contextId, status, metadata: undefined }));
    eventBus.finished();
  }

  async cancelTask(): Promise<void> {}
}

function userMessage(taskId = "", contextId = ""): Message {
  const parts = [{ content: { $case: "text" as const, value: "get_community_stats" }, mediaType: "text/plain", filename: "", metadata: undefined }];
  return { messageId: randomUUID(), role: Role.ROLE_USER, parts, contextId, taskId, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function handlerWithStore(): { handler: TimeOrderedTaskRequestHandler; store: InMemoryTaskStore; executor: RecordingExecutor; context: ServerCallContext } {
  const store = new InMemoryTaskStore();
  const executor = new RecordingExecutor();
  const handler = new TimeOrderedTaskRequestHandler(sdkAgentCard(), store, executor);
  return { handler, store, executor, context: new ServerCallContext({ user: new UnauthenticatedUser() }) };
}

async function send(handler: TimeOrderedTaskRequestHandler, context: ServerCallContext, message: Message): Promise<Task> {
  const result = await handler.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined }, context);
  if (!("status" in result)) throw new Error("expected a task");
  return result;
}

describe("TimeOrderedTaskRequestHandler", () => {
  it("gives a task the SDK starts a time-ordered id, the one its executor, its history and its store see", async () => {
    const { handler, store, executor, context } = handlerWithStore();
    const before = firstTimeOrderedIdAt(new Date(Date.now() - 1));
    const task = await send(handler, context, userMessage());
    expect(task.id).toMatch(UUID_V7);
    expect(task.id > before).toBe(true);
    expect(executor.seen).toEqual([{ taskId: task.id, contextId: task.contextId, messageTaskId: task.id, hadTask: false }]);
    expect(task.history.map((message) => message.taskId)).toEqual([task.id]);
    expect((await store.load(task.id, context))?.id).toBe(task.id);

    // Ids drawn later sort later: the index they key grows at its end.
    const later = await send(handler, context, userMessage());
    expect(later.id > task.id).toBe(true);
  });

  it("gives a message that names neither a task nor a context a time-ordered context id, later ones sorting later", async () => {
    // Without it the SDK draws a random UUID, and every message inserts at a random page of the context index.
    const { handler, executor, context } = handlerWithStore();
    const before = firstTimeOrderedIdAt(new Date(Date.now() - 1));
    const tasks = [];
    for (let i = 0; i < 20; i++) tasks.push(await send(handler, context, userMessage()));
    const contextIds = tasks.map((task) => task.contextId);
    for (const contextId of contextIds) expect(contextId).toMatch(UUID_V7);
    expect(contextIds[0]! > before).toBe(true);
    expect(new Set(contextIds).size).toBe(20);
    expect([...contextIds].sort()).toEqual(contextIds);
    // The executor, the history and the task agree on it.
    expect(tasks[0]!.history.map((message) => message.contextId)).toEqual([contextIds[0]]);
    expect(executor.seen[0]!.contextId).toBe(contextIds[0]);
  });

  it("leaves a context the caller names, and a task's context, alone", async () => {
    const { handler, context } = handlerWithStore();
    const mine = await send(handler, context, userMessage("", "mine"));
    expect(mine.contextId).toBe("mine");
    expect(mine.id).toMatch(UUID_V7);
    const first = await send(handler, context, userMessage());
    // A message naming a task but no context: the SDK takes the task's.
    expect((await send(handler, context, userMessage(first.id))).contextId).toBe(first.contextId);
  });

  it("keeps the id of the task a message names, and the SDK's checks of it", async () => {
    const { handler, executor, context } = handlerWithStore();
    const first = await send(handler, context, userMessage());
    const second = await send(handler, context, userMessage(first.id, first.contextId));
    expect(second.id).toBe(first.id);
    expect(executor.seen[1]).toEqual({ taskId: first.id, contextId: first.contextId, messageTaskId: first.id, hadTask: true });
    await expect(send(handler, context, userMessage(randomUUID()))).rejects.toThrow(/Task not found/);
  });
});
