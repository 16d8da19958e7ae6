// The A2A SDK's DefaultRequestHandler, with time-ordered ids (UUIDv7, lib/ids) for the tasks and contexts it starts.
// The SDK draws a new task's and a new context's id with crypto.randomUUID() and, unlike a2a-python
// (task_id_generator, context_id_generator), offers no generator. A random key puts every stored task on a random
// page of A2ATask's primary-key index and of its (contextId, createdAt) index, which each commit writes to the WAL
// and the checkpoint copies again; a time-ordered one lands on the index's last page, shared by the rows committed
// together (bench/README.md, fifteenth pass). The SDK builds a message's RequestContext in one private method; this
// class takes the context it built and, for a message that names no task, gives the task its id, and the context
// too when the message names none. tests/unit/a2a-request-handler.test.ts fails if an SDK update stops calling that method.
import type { SendMessageRequest } from "@a2a-js/sdk";
import { DefaultRequestHandler, type RequestContext, type ServerCallContext } from "@a2a-js/sdk/server";
import { timeOrderedId } from "@/lib/ids";

type BuildRequestContext = (this: DefaultRequestHandler, request: SendMessageRequest, context: ServerCallContext) => Promise<RequestContext>;

const sdkBuild = (DefaultRequestHandler.prototype as unknown as { _createRequestContext?: BuildRequestContext })._createRequestContext;
if (typeof sdkBuild !== "function") throw new Error("@a2a-js/sdk: DefaultRequestHandler no longer builds its RequestContext in _createRequestContext (lib/a2a/request-handler.ts)");
const buildWithSdk: BuildRequestContext = sdkBuild;

/** The request context of a message: the SDK's, with time-ordered ids for the task and context it starts. */
async function buildRequestContext(this: DefaultRequestHandler, request: SendMessageRequest, context: ServerCallContext): Promise<RequestContext> {
  const built = await buildWithSdk.call(this, request, context);
  // A message to an existing task keeps that task's id and context (the SDK loaded the task by it).
  if (request.message?.taskId) return built;
  // Set in place: the context's request is its own copy (its constructor clones the request), and building a
  // second context would clone it again (~15 µs a message in the profile).
  const ids: { taskId: string; contextId: string } = built;
  ids.taskId = built.userMessage.taskId = timeOrderedId();
  // Absent or empty ("" is proto3 JSON's none): the SDK drew the new context's id.
  if (!request.message?.contextId) ids.contextId = built.userMessage.contextId = timeOrderedId();
  return built;
}

/** DefaultRequestHandler whose new tasks have time-ordered ids; everything else is the SDK's. */
export class TimeOrderedTaskRequestHandler extends DefaultRequestHandler {}

Object.defineProperty(TimeOrderedTaskRequestHandler.prototype, "_createRequestContext", { value: buildRequestContext, writable: true, configurable: true });
