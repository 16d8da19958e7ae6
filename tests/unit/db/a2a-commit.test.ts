// What /a2a messages write (lib/a2a/commit.ts): on SQLite the messages of one event-loop iteration count their
// sends in one statement per address and write their tasks in one statement, and each still gets its own answer;
// on PostgreSQL each message counts and writes alone in its own transaction. The send budget holds exactly either way.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { ManualClock } from "@/lib/clock";
import { sqlProvider, transaction } from "@/lib/db";
import { getDb } from "@/lib/db/prisma";
import { callerKey, PEER_HEADER } from "@/lib/http/client-ip";
import { budgetRule, reserveRateLimitHits } from "@/lib/rate-limit";
import { apiRequest, webResponse } from "../../support/api";
import { sqlRunDuring } from "../../support/sql-trace";
import { markServerEntry } from "@/lib/http/server-entry";

// These requests carry the socket address as server.ts's listener stamps it: play that entry.
markServerEntry();

const SEND_BUDGET = budgetRule("a2aMessageSend");

function send(n: number, address: string): Request {
  const v1 = n % 2 === 1;
  const body = v1
    ? { jsonrpc: "2.0", id: n, method: "SendMessage", params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "get_community_stats" }] } } }
    : {
        jsonrpc: "2.0",
        id: n,
        method: "message/send",
        params: { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "get_community_stats" }] } },
      };
  const headers: Record<string, string> = { "Content-Type": "application/json", [PEER_HEADER]: address };
  if (v1) headers["A2A-Version"] = "1.0";
  return new Request("http://localhost:3000/a2a", { method: "POST", headers, body: JSON.stringify(body) });
}

async function sendAll(count: number, address: string, clock: ManualClock) {
  return Promise.all(
    Array.from({ length: count }, (_, n) =>
      handleA2aRequest(apiRequest(send(n, address)), clock).then(async (reply) => {
        const response = webResponse(reply);
        return { status: response.status, body: (await response.json()) as { id: number; result?: Record<string, unknown>; error?: { code: number } } };
      }),
    ),
  );
}

const bucketKey = (address: string) => `${SEND_BUDGET.name}:${callerKey(new Headers({ [PEER_HEADER]: address }))}`;

describe("the writes of concurrent A2A messages", () => {
  it("count and store each message, the same iteration's in one statement each on SQLite", async () => {
    const clock = new ManualClock(Date.UTC(2026, 8, 1, 8, 0, 0));
    const address = "203.0.113.41";
    // One message first, from elsewhere, computes the cached statistic: the twelve then write nothing but their
    // count and task (a write of their own would be answered after a sync of the log, in iterations of its own).
    await sendAll(1, "203.0.113.40", clock);
    const tasksBefore = await getDb().a2ATask.count();
    let answers: Awaited<ReturnType<typeof sendAll>> = [];
    const statements = await sqlRunDuring(async () => {
      answers = await sendAll(12, address, clock);
    });
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    expect(answers.map((answer) => answer.body.id)).toEqual(Array.from({ length: 12 }, (_, n) => n));
    expect(await getDb().a2ATask.count()).toBe(tasksBefore + 12);
    expect((await getDb().rateLimitBucket.findUniqueOrThrow({ where: { key: bucketKey(address) } })).count).toBe(12);
    const counts = statements.filter((sql) => sql.includes(`INSERT INTO "RateLimitBucket"`));
    const taskWrites = statements.filter((sql) => sql.includes(`INSERT INTO "A2ATask"`));
    if (sqlProvider() === "sqlite") {
      expect(counts).toHaveLength(1);
      expect(taskWrites).toHaveLength(1);
    } else {
      expect(counts).toHaveLength(12);
      expect(taskWrites).toHaveLength(12);
      expect(statements.filter((sql) => sql === "BEGIN")).toHaveLength(12);
    }
  });

  it("let exactly the window's room through when more arrive together; a refused message is answered -32010 and stores nothing", async () => {
    const clock = new ManualClock(Date.UTC(2026, 8, 2, 8, 0, 0));
    const address = "203.0.113.42";
    const subject = callerKey(new Headers({ [PEER_HEADER]: address }));
    // Room for five more sends in this address's window.
    await transaction(() => reserveRateLimitHits(SEND_BUDGET, subject, SEND_BUDGET.limit - 5, clock.now()));
    const tasksBefore = await getDb().a2ATask.count();
    const answers = await sendAll(12, address, clock);
    const answered = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answered).toHaveLength(5);
    expect(refused).toHaveLength(7);
    for (const answer of answered) expect(answer.body.result).toBeDefined();
    for (const answer of refused) expect(answer.body.error?.code).toBe(-32010);
    expect(await getDb().a2ATask.count()).toBe(tasksBefore + 5);
    expect((await getDb().rateLimitBucket.findUniqueOrThrow({ where: { key: bucketKey(address) } })).count).toBe(SEND_BUDGET.limit);
  });
});
