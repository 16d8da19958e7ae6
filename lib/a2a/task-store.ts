// A2A tasks kept in the database (A2ATask; this module is its store) for 24 hours, so tasks/get works on any instance.
import type { Task } from "@a2a-js/sdk";
import type { TaskStore } from "@a2a-js/sdk/server";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, readDate } from "@/lib/db";

export const TASK_RETENTION_SECONDS = 24 * 60 * 60;
const TERMINAL_STATES = new Set(["completed", "failed", "canceled", "rejected"]);

function skillOf(task: Task): string {
  const skill = task.metadata?.["skill"];
  return typeof skill === "string" ? skill.slice(0, 64) : "unknown";
}

export class DbTaskStore implements TaskStore {
  /** The first storage failure of this request: the SDK turns throws into JSON-RPC errors, the route needs to see it. */
  storageError: unknown;

  constructor(private readonly clock: Clock = systemClock) {}

  async save(task: Task): Promise<void> {
    const now = this.clock.now();
    try {
      await db().execute(
        `INSERT INTO "A2ATask" ("id", "contextId", "skill", "state", "task", "createdAt", "expiresAt") VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT ("id") DO UPDATE SET "state" = $4, "task" = $5`,
        [task.id, task.contextId, skillOf(task), task.status.state, JSON.stringify(task), now, new Date(now.getTime() + TASK_RETENTION_SECONDS * 1000)],
      );
      // Expired tasks are pruned as finished ones are written, so the table stays about one day deep.
      if (TERMINAL_STATES.has(task.status.state)) await db().execute(`DELETE FROM "A2ATask" WHERE "expiresAt" < $1`, [now]);
    } catch (error) {
      this.storageError ??= error;
      throw error;
    }
  }

  async load(taskId: string): Promise<Task | undefined> {
    try {
      const rows = await db().query<{ task: string; expiresAt: unknown }>(`SELECT "task", "expiresAt" FROM "A2ATask" WHERE "id" = $1`, [taskId]);
      const row = rows[0];
      if (!row || readDate(row.expiresAt).getTime() <= this.clock.now().getTime()) return undefined;
      return JSON.parse(row.task) as Task;
    } catch (error) {
      this.storageError ??= error;
      throw error;
    }
  }
}

/** The janitor: removes up to `limit` tasks past their 24 hours at `now`; the number removed. */
export function deleteExpiredTasks(now: Date, limit: number): Promise<number> {
  return db().execute(`DELETE FROM "A2ATask" WHERE "id" IN (SELECT "id" FROM "A2ATask" WHERE "expiresAt" < $1 LIMIT $2)`, [now, limit]);
}
