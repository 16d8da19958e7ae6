// A2A tasks kept in the database (A2ATask) for 24 hours, so tasks/get works on any instance.
import type { Task } from "@a2a-js/sdk";
import type { TaskStore } from "@a2a-js/sdk/server";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { getDb } from "@/lib/db";

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
      const db = getDb();
      await db.a2ATask.upsert({
        where: { id: task.id },
        create: {
          id: task.id,
          contextId: task.contextId,
          skill: skillOf(task),
          state: task.status.state,
          task: JSON.stringify(task),
          createdAt: now,
          expiresAt: new Date(now.getTime() + TASK_RETENTION_SECONDS * 1000),
        },
        update: { state: task.status.state, task: JSON.stringify(task) },
      });
      // Expired tasks are pruned as finished ones are written, so the table stays about one day deep.
      if (TERMINAL_STATES.has(task.status.state)) await db.a2ATask.deleteMany({ where: { expiresAt: { lt: now } } });
    } catch (error) {
      this.storageError ??= error;
      throw error;
    }
  }

  async load(taskId: string): Promise<Task | undefined> {
    try {
      const row = await getDb().a2ATask.findUnique({ where: { id: taskId } });
      if (!row || row.expiresAt.getTime() <= this.clock.now().getTime()) return undefined;
      return JSON.parse(row.task) as Task;
    } catch (error) {
      this.storageError ??= error;
      throw error;
    }
  }
}
