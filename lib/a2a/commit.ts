// What an /a2a message writes, committed together with the other messages of its event-loop iteration: its count
// against the send budget (RateLimitBucket) and its task (A2ATask). Messages arrive many per iteration under load,
// and one statement per message each for the count and the task, in a savepoint each, was a large share of what a
// message cost beyond the bare SDK. As one commit batch (lib/db inCommitBatch) the
// messages of an iteration count each address's hits in one statement and write their tasks in one more, and
// every message still gets its own answer only after the COMMIT. PostgreSQL runs each message alone, in a
// transaction of its own: the count and the task commit together or not at all.
import type { Clock } from "@/lib/clock";
import { inCommitBatch, type CommitBatch } from "@/lib/db";
import { reserveRateLimitHits, type RateLimitResult, type RateLimitRule } from "@/lib/rate-limit";
import { writeTasks, type TaskWrite } from "./task-store";

/** One message's writes: a hit to count (and, when refused, its tasks are not written), and its tasks. */
export interface MessageWrites {
  count?: { rule: RateLimitRule; subject: string; at: Date };
  tasks: readonly TaskWrite[];
}

/** Per message: the count's result, when it counted one. */
export type MessageWritesResult = RateLimitResult | undefined;

const MESSAGE_WRITES: CommitBatch<MessageWrites, MessageWritesResult> = {
  async run(messages) {
    const results: MessageWritesResult[] = new Array<MessageWritesResult>(messages.length).fill(undefined);
    // Hits of one budget and address in one statement, at the latest moment among them (the batch runs after all).
    const bySubject = new Map<string, { rule: RateLimitRule; subject: string; at: Date; indexes: number[] }>();
    messages.forEach((message, index) => {
      const count = message.count;
      if (!count) return;
      const key = `${count.rule.name}\n${count.subject}`;
      const hits = bySubject.get(key);
      if (!hits) bySubject.set(key, { rule: count.rule, subject: count.subject, at: count.at, indexes: [index] });
      else {
        hits.indexes.push(index);
        if (count.at.getTime() > hits.at.getTime()) hits.at = count.at;
      }
    });
    for (const { rule, subject, at, indexes } of bySubject.values()) {
      const counted = await reserveRateLimitHits(rule, subject, indexes.length, at);
      indexes.forEach((messageIndex, hit) => (results[messageIndex] = counted[hit]));
    }
    const tasks = messages.flatMap((message, index) => (results[index]?.allowed === false ? [] : message.tasks));
    if (tasks.length > 0) await writeTasks(tasks);
    return results;
  },
};

/**
 * Counts a hit of `rule` for `subject` (at the clock's now) and, unless it is refused, writes `tasks`; resolves once
 * committed, with the count's result.
 */
export function countAndWrite(rule: RateLimitRule, subject: string, tasks: readonly TaskWrite[], clock: Clock): Promise<RateLimitResult> {
  return inCommitBatch(MESSAGE_WRITES, { count: { rule, subject, at: clock.now() }, tasks }).then((result) => {
    if (!result) throw new Error("a counted message without its count's result");
    return result;
  });
}

/** Writes `tasks` (nothing counted); resolves once committed. */
export function writeCommitted(tasks: readonly TaskWrite[]): Promise<void> {
  return tasks.length === 0 ? Promise.resolve() : inCommitBatch(MESSAGE_WRITES, { tasks }).then(() => undefined);
}
