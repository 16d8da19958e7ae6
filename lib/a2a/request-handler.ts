// The A2A SDK's DefaultRequestHandler, with time-ordered ids (UUIDv7, lib/ids) for the tasks it starts.
// The SDK draws a new task's id with crypto.randomUUID() and, unlike a2a-python (task_id_generator), offers no
// generator. A random key puts every stored task on a random page of A2ATask's primary-key index, which each commit
// writes to the WAL and the checkpoint copies again; a time-ordered one lands on the index's last page, shared by the
// rows committed together (bench/README.md, fifteenth pass). The SDK builds a message's RequestContext in one
// private method; this class takes the context it built and, for a message that names no task, gives the task its
// id. tests/unit/a2a-request-handler.test.ts fails if an SDK update stops calling that method.
import type { SendMessageRequest } from "@a2a-js/sdk";
import { DefaultRequestHandler, type RequestContext, type ServerCallContext } from "@a2a-js/sdk/server";
import { timeOrderedId } from "@/lib/ids";

type BuildRequestContext = (this: DefaultRequestHandler, request: SendMessageRequest, context: ServerCallContext) => Promise<RequestContext>;

const sdkBuild = (DefaultRequestHandler.prototype as unknown as { _createRequestContext?: BuildRequestContext })._createRequestContext;
if (typeof sdkBuild !== "function") throw new Error("@a2a-js/sdk: DefaultRequestHandler no longer builds its RequestContext in _createRequestContext (lib/a2a/request-handler.ts)");
const buildWithSdk: BuildRequestContext = sdkBuild;

/** The request context of a message: the SDK's, with a time-ordered id when the message starts a task. */
async function buildRequestContext(this: DefaultRequestHandler, request: SendMessageRequest, context: ServerCallContext): Promise<RequestContext> {
  const built = await buildWithSdk.call(this, request, context);
  // A message to an existing task keeps that task's id (the SDK loaded the task by it).
  if (request.message?.taskId) return built;
  const taskId = timeOrderedId();
  // Set in place: the context's request is its own copy (its constructor clones the request), and building a
  // second context would clone it again (~15 µs a message in the profile).
  const named: { taskId: string } = built;
  named.taskId = taskId;
  built.userMessage.taskId = taskId;
  return built;
}

/** DefaultRequestHandler whose new tasks have time-ordered ids; everything else is the SDK's. */
export class TimeOrderedTaskRequestHandler extends DefaultRequestHandler {}

Object.defineProperty(TimeOrderedTaskRequestHandler.prototype, "_createRequestContext", { value: buildRequestContext, writable: true, configurable: true });
