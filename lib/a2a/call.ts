// One /a2a call's own state, carried through the SDK's request handler in its ServerCallContext, which the SDK
// hands to the task store on every save/load/list and to the executor inside its RequestContext. That lets the
// handler, its event-bus manager and both transports be built once per process (jsonrpc.ts), as the SDK's own
// servers do, instead of once per message.
import type { Task, ListTasksRequest, ListTasksResponse } from "@a2a-js/sdk";
import { ServerCallContext, UnauthenticatedUser, type TaskStore } from "@a2a-js/sdk/server";
import type { A2aVersion } from "./version";
import type { DbTaskStore } from "./task-store";

/** What one call brings: the caller's address (tools count by it) and the call's unit of work for tasks. */
export interface A2aCall {
  readonly clientIp: string;
  /** This call's task writes, kept until the route flushes them (task-store.ts, "at-flush"). */
  readonly tasks: DbTaskStore;
  /** A database outage met while running a skill: the route answers -32011 (HTTP 503) rather than a failed task. */
  databaseError?: unknown;
}

const ANONYMOUS = new UnauthenticatedUser();

/** The SDK's call context with this call attached (the SDK keeps the instance it is given through the call). */
export class A2aCallContext extends ServerCallContext {
  constructor(
    version: A2aVersion,
    readonly call: A2aCall,
  ) {
    super({ user: ANONYMOUS, requestedVersion: version });
  }
}

/** The call a context belongs to; every context the handler sees was made by the route, so any other is a bug. */
export function a2aCallOf(context: ServerCallContext): A2aCall {
  if (!(context instanceof A2aCallContext)) throw new Error("an A2A call context without its call");
  return context.call;
}

/** The process-wide task store the SDK handler holds: each method works on the calling request's own store. */
export class CallTaskStore implements TaskStore {
  save(task: Task, context: ServerCallContext): Promise<void> {
    return a2aCallOf(context).tasks.save(task);
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return a2aCallOf(context).tasks.load(taskId);
  }

  list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return a2aCallOf(context).tasks.list(params);
  }
}
