// Runs one community tool per message (A2A 1.0 SendMessage, or 0.3 message/send through the SDK's compat layer)
// and publishes the events the SDK's request handler turns into the task: submitted task → artifact with the
// output as a data part → completed (or failed). Events are the SDK's own objects (AgentEvent), in its 1.0 shape.
// One executor per process (jsonrpc.ts): what belongs to a call (the caller's address, its task store, a database
// outage met) is read from the call context the SDK hands over (call.ts).
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { TOOL_FAILED_MESSAGE } from "@/lib/http/errors";
import { errorLog } from "@/lib/observability/log";
import type { Clock } from "@/lib/clock";
import { runTool, ToolError } from "@/lib/tools";
import { traceSkill, tracingOn } from "@/lib/tracing";
import { a2aCallOf } from "./call";
import { readInvocationParts, sdkMessageParts } from "./invocation";

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: undefined };
}

function agentMessage(text: string, taskId: string, contextId: string): Message {
  return { role: Role.ROLE_AGENT, messageId: randomUUID(), parts: [textPart(text)], taskId, contextId, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export class CommunityToolExecutor implements AgentExecutor {
  constructor(private readonly clock: Clock) {}

  private finish(eventBus: ExecutionEventBus, state: TaskState, text: string, taskId: string, contextId: string): void {
    const status = { state, message: agentMessage(text, taskId, contextId), timestamp: this.clock.now().toISOString() };
    eventBus.publish(AgentEvent.statusUpdate({ taskId, contextId, status, metadata: undefined }));
    eventBus.finished();
  }

  async execute(requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = requestContext;
    const call = a2aCallOf(requestContext.context);
    // No task in the context: the message carried no taskId and the SDK drew this id just now,
    // so no store holds it yet and loading it needs no query.
    if (!requestContext.task) call.tasks.noteCreated(taskId);
    const invocation = readInvocationParts(sdkMessageParts(userMessage));
    const skill = invocation.ok ? invocation.tool.name : invocation.skill;
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: this.clock.now().toISOString() },
      artifacts: [],
      history: [userMessage],
      metadata: { skill },
    };
    eventBus.publish(AgentEvent.task(task));
    // The help answer (a sentence that asks for no skill, or for more than one) is a completed task, not a failed
    // one: the request was read and answered in full, with the skills in the status message, and nothing broke.
    // Nor input-required: every task here is finished when its send returns (a message naming it is refused), so
    // the next try is a new message, in the same context if the caller wants.
    if (!invocation.ok) {
      const state = invocation.help ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED;
      return this.finish(eventBus, state, invocation.message, taskId, contextId);
    }
    try {
      const toolContext = { clock: this.clock, clientIp: call.clientIp };
      // Traces on: the skill is a span of its own (lib/tracing); off, no closure is made.
      const output = tracingOn()
        ? await traceSkill(skill, () => runTool(invocation.tool, invocation.input, toolContext))
        : await runTool(invocation.tool, invocation.input, toolContext);
      const dataPart: Part = { content: { $case: "data", value: output }, mediaType: "application/json", filename: "", metadata: undefined };
      eventBus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId: randomUUID(), name: `${skill} result`, description: "", parts: [dataPart], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      this.finish(eventBus, TaskState.TASK_STATE_COMPLETED, JSON.stringify(output), taskId, contextId);
    } catch (error) {
      if (isDatabaseUnavailable(error)) call.databaseError ??= error;
      else if (!(error instanceof ToolError)) errorLog(error, `a2a skill ${skill}`);
      // Our own wording only: an unexpected failure is not the caller's to retry blindly, and its text stays in the log.
      this.finish(eventBus, TaskState.TASK_STATE_FAILED, error instanceof ToolError ? error.message : TOOL_FAILED_MESSAGE, taskId, contextId);
    }
  }

  async cancelTask(taskId: string, eventBus: ExecutionEventBus): Promise<void> {
    // Skills finish within the request, so there is never running work to stop; record the cancellation.
    const status = { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: this.clock.now().toISOString() };
    eventBus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", status, metadata: undefined }));
    eventBus.finished();
  }
}
