// A2A tasks kept in the database (A2ATask; this module is its store) for 24 hours, so GetTask/tasks/get and
// ListTasks work on any instance. Rows hold the SDK's 1.0 Task as proto JSON; both protocol generations read them
// (the SDK's compat layer turns a 1.0 task into its 0.3 form).
//
// Who may list a context (issue 32): a context id the service made (a UUID in a SendMessage answer) is
// listed for whoever knows it, as a task id is read; a context id the client chose ("session-1") is its
// caller's alone. Such a task's row keeps the id in its task JSON but holds a caller-scoped key in the
// "contextId" column (callerContextKey), so ListTasks from another caller key never finds it.
import { createHash } from "node:crypto";
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { TaskStore } from "@a2a-js/sdk/server";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, readDate, type SqlValue } from "@/lib/db";
import { legacyTaskToV1Json } from "./legacy-task";

export const TASK_RETENTION_SECONDS = 24 * 60 * 60;

/** The state column keeps the 0.3 names it always held (the janitor and operators read it). */
const STATE_NAMES: Readonly<Partial<Record<TaskState, string>>> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};
const TERMINAL_STATES = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

function stateName(state: TaskState | undefined): string {
  return (state !== undefined ? STATE_NAMES[state] : undefined) ?? "unknown";
}

/** The 0.3 name of a task's state when it is terminal (no message can change it any more), else undefined. */
export function terminalStateName(task: Task): string | undefined {
  const state = task.status?.state;
  return state !== undefined && TERMINAL_STATES.has(state) ? stateName(state) : undefined;
}

function skillOf(task: Task): string {
  const skill: unknown = task.metadata?.["skill"];
  return typeof skill === "string" ? skill.slice(0, 64) : "unknown";
}

/** A stored row's task; rows written before A2A 1.0 hold the 0.3 shape (`kind: "task"`). */
function readStoredTask(text: string): Task {
  const stored = JSON.parse(text) as unknown;
  return Task.fromJSON(legacyTaskToV1Json(stored) ?? stored);
}

/** The prefix of a caller-scoped context key; a ListTasks contextId with it never matches a row as it stands. */
const CALLER_SCOPED = "caller:";

/** The column value of a task in a context its client chose: the caller key's digest, then the client's id. */
export function callerContextKey(callerKey: string, contextId: string): string {
  return `${CALLER_SCOPED}${createHash("sha256").update(callerKey).digest("hex").slice(0, 32)}:${contextId}`;
}

/** ListTasks pages: newest first; the token is the (createdAt, id) of the last task of the page before. */
function encodePageToken(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.getTime(), id]), "utf8").toString("base64url");
}

function decodePageToken(token: string): { createdAt: Date; id: string } {
  try {
    const value = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === "string") {
      return { createdAt: new Date(value[0] as number), id: value[1] };
    }
  } catch {
    // falls through to the refusal
  }
  throw new RequestMalformedError({ message: "Invalid params: pageToken is not a token this agent gave out." });
}

const DONE: Promise<void> = Promise.resolve();
const NOT_STORED: Promise<Task | undefined> = Promise.resolve(undefined);

/** Expired tasks are pruned as finished ones are written, at most once a minute per process (the janitor does the rest). */
const PRUNE_INTERVAL_MS = 60_000;
let lastPruneAt: number | undefined;

/**
 * A task to write, and when: its row's createdAt, and its expiry 24 hours on. contextKey: the "contextId"
 * column of a new row when it is not the task's own contextId (callerContextKey); a known task keeps its row's.
 */
export interface TaskWrite {
  task: Task;
  at: Date;
  contextKey?: string | undefined;
}

/** Rows per INSERT: 7 values each, far below SQLite's 32,766 placeholders; one text per row count is prepared. */
const ROWS_PER_INSERT = 64;
const insertTexts: string[] = [];

function insertText(rows: number): string {
  let text = insertTexts[rows];
  if (!text) {
    const values = Array.from({ length: rows }, (_, row) => `(${Array.from({ length: 7 }, (_, column) => `$${row * 7 + column + 1}`).join(", ")})`);
    text = `INSERT INTO "A2ATask" ("id", "contextId", "skill", "state", "task", "createdAt", "expiresAt") VALUES ${values.join(", ")}
     ON CONFLICT ("id") DO UPDATE SET "state" = excluded."state", "task" = excluded."task"`;
    insertTexts[rows] = text;
  }
  return text;
}

/**
 * Writes tasks (a new task's row, or a known task's state and content): one multi-row statement per 64 tasks, so
 * the messages of one group commit write their tasks together (lib/a2a/commit.ts). A task written twice keeps its
 * last state, as two writes one after the other would.
 */
export async function writeTasks(writes: readonly TaskWrite[]): Promise<void> {
  const lastOfEach = new Map<string, TaskWrite>();
  for (const write of writes) {
    lastOfEach.delete(write.task.id);
    lastOfEach.set(write.task.id, write);
  }
  const unique = [...lastOfEach.values()];
  let finished = false;
  let latest = 0;
  for (let start = 0; start < unique.length; start += ROWS_PER_INSERT) {
    const chunk = unique.slice(start, start + ROWS_PER_INSERT);
    const values: SqlValue[] = [];
    for (const { task, at, contextKey } of chunk) {
      const state = task.status?.state;
      finished ||= state !== undefined && TERMINAL_STATES.has(state);
      latest = Math.max(latest, at.getTime());
      values.push(
        task.id,
        contextKey ?? task.contextId,
        skillOf(task),
        stateName(state),
        JSON.stringify(Task.toJSON(task)),
        at,
        new Date(at.getTime() + TASK_RETENTION_SECONDS * 1000),
      );
    }
    await db().execute(insertText(chunk.length), values);
  }
  // The table stays about one day deep; a clock moved back (tests) prunes again at once.
  const due = lastPruneAt === undefined || latest - lastPruneAt >= PRUNE_INTERVAL_MS || latest < lastPruneAt;
  if (finished && due) {
    lastPruneAt = latest;
    await db().execute(`DELETE FROM "A2ATask" WHERE "expiresAt" < $1`, [new Date(latest)]);
  }
}

/**
 * One store per request. The SDK saves a task after every event it publishes (submitted, artifact, completed):
 * those saves are kept here, and the route writes each task once, in its last state, when the request's work is
 * done (takeWrites, then writeTasks in lib/a2a/commit.ts), so a message costs one row rather than three; load()
 * sees the saves not yet written.
 */
export class DbTaskStore implements TaskStore {
  /** The first storage failure of this request: the SDK turns throws into JSON-RPC errors, the route needs to see it. */
  storageError: unknown;

  private readonly unwritten = new Map<string, Task>();
  /** Tasks this request creates: not in the database yet, so loading one before its first save needs no query. */
  private readonly created = new Set<string>();

  /**
   * callerKey: the calling request's (lib/http/client-ip.ts), which scopes ListTasks and the contexts it names.
   * clientContextId: the contextId the call's message chose itself, if any: new tasks in it are the caller's.
   */
  constructor(
    private readonly clock: Clock = systemClock,
    private readonly callerKey: string = "",
    private readonly clientContextId: string | undefined = undefined,
  ) {}

  /** Notes the first storage failure (the SDK turns throws into JSON-RPC errors, the route needs to see it). */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      this.storageError ??= error;
      throw error;
    }
  }

  /**
   * Notes a task id the SDK has just generated for this request's message. The SDK loads each task before it
   * merges the first event into it: for a new task that load would be a query that cannot find anything.
   */
  noteCreated(taskId: string): void {
    this.created.add(taskId);
  }

  // The SDK calls save and load three times per message each; a settled promise is returned where nothing is
  // waited for.
  save(task: Task): Promise<void> {
    this.unwritten.set(task.id, task);
    return DONE;
  }

  /** The last saved state of every task saved during the request, to write now that its work is done (once). */
  takeWrites(): TaskWrite[] {
    const at = this.clock.now();
    const chosen = this.clientContextId;
    const writes = Array.from(this.unwritten.values(), (task) => ({
      task,
      at,
      contextKey: chosen !== undefined && task.contextId === chosen ? callerContextKey(this.callerKey, chosen) : undefined,
    }));
    this.unwritten.clear();
    return writes;
  }

  load(taskId: string): Promise<Task | undefined> {
    const unwritten = this.unwritten.get(taskId);
    // A copy: the SDK changes the tasks it loads before saving them again. A proto JSON round trip, not
    // structuredClone (about 1.3 µs against 11 µs for a finished task).
    if (unwritten) return Promise.resolve(Task.fromJSON(Task.toJSON(unwritten)));
    if (this.created.has(taskId)) return NOT_STORED;
    return this.guarded(async () => {
      const rows = await db().query<{ task: string; expiresAt: unknown }>(`SELECT "task", "expiresAt" FROM "A2ATask" WHERE "id" = $1`, [taskId]);
      const row = rows[0];
      if (!row || readDate(row.expiresAt).getTime() <= this.clock.now().getTime()) return undefined;
      return readStoredTask(row.task);
    });
  }

  /**
   * The tasks of one context (the scope of ListTasks for anonymous callers: jsonrpc.ts requires contextId), newest
   * first: the rows of a context the service made, and those of a context this caller chose (see the top). statusTimestampAfter compares with the task's creation: skills finish within the request that creates
   * the task, so its creation and its last status change are the same moment.
   */
  async list(params: ListTasksRequest): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    if (!params.contextId) return { tasks: [], nextPageToken: "", pageSize, totalSize: 0 };
    const scoped = callerContextKey(this.callerKey, params.contextId);
    // A scoped key sent as a contextId names someone's chosen context as stored: only the caller's own matches.
    const asMade = params.contextId.startsWith(CALLER_SCOPED) ? scoped : params.contextId;
    const conditions = [`"contextId" IN ($1, $2)`, `"expiresAt" > $3`];
    const values: SqlValue[] = [asMade, scoped, this.clock.now()];
    if (params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED) {
      values.push(stateName(params.status));
      conditions.push(`"state" = $${values.length}`);
    }
    if (params.statusTimestampAfter) {
      values.push(new Date(params.statusTimestampAfter));
      conditions.push(`"createdAt" > $${values.length}`);
    }
    const filter = conditions.join(" AND ");
    const filterValues = [...values];
    if (params.pageToken) {
      const after = decodePageToken(params.pageToken);
      values.push(after.createdAt, after.id);
      conditions.push(`("createdAt" < $${values.length - 1} OR ("createdAt" = $${values.length - 1} AND "id" < $${values.length}))`);
    }
    return this.guarded(async () => {
      const rows = await db().query<{ id: string; task: string; createdAt: unknown }>(
        `SELECT "id", "task", "createdAt" FROM "A2ATask" WHERE ${conditions.join(" AND ")} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${pageSize + 1}`,
        values,
      );
      const counted = await db().query<{ total: unknown }>(`SELECT COUNT(*) AS "total" FROM "A2ATask" WHERE ${filter}`, filterValues);
      const page = rows.slice(0, pageSize);
      const last = page[page.length - 1];
      return {
        // Artifacts only when asked for (A2A 1.0: includeArtifacts defaults to false); the SDK leaves that to the store.
        tasks: page.map((row) => {
          const task = readStoredTask(row.task);
          return params.includeArtifacts ? task : { ...task, artifacts: [] };
        }),
        nextPageToken: rows.length > pageSize && last ? encodePageToken(readDate(last.createdAt), last.id) : "",
        pageSize,
        totalSize: Number(counted[0]?.total ?? 0),
      };
    });
  }
}

/** The janitor: removes up to `limit` tasks past their 24 hours at `now`; the number removed. */
export function deleteExpiredTasks(now: Date, limit: number): Promise<number> {
  return db().execute(`DELETE FROM "A2ATask" WHERE "id" IN (SELECT "id" FROM "A2ATask" WHERE "expiresAt" < $1 LIMIT $2)`, [now, limit]);
}
