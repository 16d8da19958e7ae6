// Runs one community tool per message/send and publishes the A2A events the SDK's request handler
// turns into the task: submitted task → artifact with the output as a data part → completed (or failed).
import { randomUUID } from "node:crypto";
import type { Message, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { TOOL_FAILED_MESSAGE } from "@/lib/http/errors";
import { runTool, ToolError, type ToolContext } from "@/lib/tools";
import { readInvocation } from "./invocation";

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return { kind: "message", role: "agent", messageId: randomUUID(), parts: [{ kind: "text", text }], taskId, contextId };
}

function statusUpdate(state: TaskState, text: string, taskId: string, contextId: string, at: Date): TaskStatusUpdateEvent {
  return { kind: "status-update", taskId, contextId, status: { state, message: agentMessage(text, taskId, contextId), timestamp: at.toISOString() }, final: true };
}

export class CommunityToolExecutor implements AgentExecutor {
  /** A database outage met while running a skill: the route answers JSON-RPC -32011 (HTTP 503) rather than a failed task. */
  databaseError: unknown;

  constructor(private readonly context: ToolContext) {}

  async execute(requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = requestContext;
    const invocation = readInvocation(userMessage);
    const skill = invocation.ok ? invocation.tool.name : invocation.skill;
    const task: Task = {
      kind: "task",
      id: taskId,
      contextId,
      status: { state: "submitted", timestamp: this.context.clock.now().toISOString() },
      history: [userMessage],
      metadata: { skill },
    };
    eventBus.publish(task);
    if (!invocation.ok) {
      eventBus.publish(statusUpdate("failed", invocation.message, taskId, contextId, this.context.clock.now()));
      eventBus.finished();
      return;
    }
    try {
      const output = await runTool(invocation.tool, invocation.input, this.context);
      const artifact: TaskArtifactUpdateEvent = {
        kind: "artifact-update",
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), name: `${skill} result`, parts: [{ kind: "data", data: output }] },
        lastChunk: true,
      };
      eventBus.publish(artifact);
      eventBus.publish(statusUpdate("completed", JSON.stringify(output), taskId, contextId, this.context.clock.now()));
    } catch (error) {
      if (isDatabaseUnavailable(error)) this.databaseError ??= error;
      else if (!(error instanceof ToolError)) {
        const e = error as { name?: string; message?: string };
        console.error(`[agent-gate] a2a skill ${skill} failed: ${e?.name ?? "error"}: ${String(e?.message ?? error).slice(0, 200)}`);
      }
      // Our own wording only: an unexpected failure is not the caller's to retry blindly, and its text stays in the log.
      const text = error instanceof ToolError ? error.message : TOOL_FAILED_MESSAGE;
      eventBus.publish(statusUpdate("failed", text, taskId, contextId, this.context.clock.now()));
    }
    eventBus.finished();
  }

  async cancelTask(taskId: string, eventBus: ExecutionEventBus): Promise<void> {
    // Skills finish within the request, so there is never running work to stop; record the cancellation.
    eventBus.publish({ kind: "status-update", taskId, contextId: "", status: { state: "canceled", timestamp: this.context.clock.now().toISOString() }, final: true });
    eventBus.finished();
  }
}
