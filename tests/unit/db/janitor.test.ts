// The janitor (issue #17 item 4): a simulated day of traffic on a hand-moved clock, eight days later a
// second one, then janitor passes: every table holds exactly its live rows, and the lifecycle still answers
// as before for what was removed.
import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { TaskState, type Task } from "@a2a-js/sdk";
import { writeTasks } from "@/lib/a2a/task-store";
import { exchangeIdentityAssertion } from "@/lib/assertions";
import { recordAudit } from "@/lib/audit";
import { decideAttempt, pollClaim, refreshClaim, registerClaim, type NewRegistration } from "@/lib/service-auth/lifecycle";
import { ManualClock } from "@/lib/clock";
import { sqlProvider } from "@/lib/db";
import { getDb } from "@/lib/db/prisma";
import { cancelDelegation } from "@/lib/delegations";
import { JANITOR_LOCK_KEY, runJanitorPass, type JanitorReport } from "@/lib/operator/janitor";
import { firstTimeOrderedIdAt, timeOrderedId } from "@/lib/ids";
import { hitRateLimit } from "@/lib/rate-limit";
import { acceptOnceInDatabase } from "@/lib/shared-state/postgres";
import { SCOPES } from "@/lib/schemas/service-auth";
import { protectedResource, revokeAccessToken, verifyAccessToken } from "@/lib/tokens";
import { apiRequest, webResponse } from "../../support/api";
import { statementsReadingWholeTables } from "../../support/query-plans";
import { sqlRunDuring } from "../../support/sql-trace";
import { getConfig } from "@/lib/config";
import { useTestConfig } from "../../support/config";

const ADA = "ada@example.com";
const DAY = 24 * 3600;
const T0 = Date.UTC(2026, 2, 1, 0, 0, 0);
const RULE = { name: "janitor-test:ip", limit: 2, windowSeconds: 60 };

async function member(email = ADA) {
  const row = await getDb().member.findUniqueOrThrow({ where: { email } });
  return { id: row.id, email: row.email };
}

const register = (clock: ManualClock): Promise<NewRegistration> => registerClaim({ loginHint: ADA, clientName: "Janitor Agent", scopes: [...SCOPES] }, clock);

async function decide(reg: NewRegistration, clock: ManualClock, decision: "approve" | "deny") {
  const outcome = await decideAttempt({ attemptToken: reg.attempt.attemptToken, member: await member(), userCode: reg.attempt.userCode, decision }, clock);
  expect(outcome.outcome).toBe(decision === "approve" ? "approved" : "denied");
}

async function pollToken(reg: NewRegistration, clock: ManualClock) {
  const outcome = await pollClaim(reg.claimToken, clock);
  if (!outcome.ok) throw new Error(`poll failed: ${outcome.error}`);
  return outcome;
}

function task(id: string): Task {
  return {
    id,
    contextId: `ctx-${id}`,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
    artifacts: [],
    history: [],
    metadata: { skill: "get_community_stats" },
  };
}

async function counts() {
  const prisma = getDb();
  return {
    AccessToken: await prisma.accessToken.count(),
    Registration: await prisma.registration.count(),
    ClaimAttempt: await prisma.claimAttempt.count(),
    Delegation: await prisma.delegation.count(),
    RateLimitBucket: await prisma.rateLimitBucket.count({ where: { key: { startsWith: `${RULE.name}:` } } }),
    SharedState: await prisma.sharedState.count({ where: { key: { startsWith: "o:janitor-test:" } } }),
    A2ATask: await prisma.a2ATask.count(),
    AuditEvent: await prisma.auditEvent.count(),
  };
}

function removed(report: JanitorReport): Record<string, number> {
  if (!report.ran) throw new Error("the pass did not run");
  return report.removed;
}

describe("janitor", () => {
  it("after a simulated day and a week on, every table holds only its live rows", async () => {
    const clock = new ManualClock(T0);
    const ada = await member();
    const start = await counts();

    // Audit events from long ago: 401 days (gone) and 399 days before the final pass (kept).
    const end = T0 + 8 * DAY * 1000 + 30 * 60 * 1000;
    await recordAudit({ type: "registration", memberId: ada.id, detail: "ancient" }, new ManualClock(end - 401 * DAY * 1000));
    await recordAudit({ type: "registration", memberId: ada.id, detail: "ancient" }, new ManualClock(end - 402 * DAY * 1000));
    await recordAudit({ type: "registration", memberId: ada.id, detail: "old but kept" }, new ManualClock(end - 399 * DAY * 1000));

    // ---- day 0
    // R1: approved, polled (claim token), its assertion exchanged (jwt-bearer token), the first token revoked.
    const r1 = await register(clock);
    clock.advance(30);
    await decide(r1, clock, "approve");
    clock.advance(5);
    const r1Poll = await pollToken(r1, clock);
    const exchanged = await exchangeIdentityAssertion({ assertion: r1Poll.identityAssertion, resource: protectedResource() }, clock);
    expect(exchanged.ok).toBe(true);
    await revokeAccessToken(r1Poll.accessToken, clock);
    // R2: denied by the member, polled once (access_denied).
    const r2 = await register(clock);
    await decide(r2, clock, "deny");
    expect(await pollClaim(r2.claimToken, clock)).toEqual({ ok: false, error: "access_denied" });
    // R3: never decided; its attempt expires, a refresh replaces it (closed), the second one expires too.
    const r3 = await register(clock);
    clock.advance(3600);
    expect((await refreshClaim({ claimToken: r3.claimToken, email: ADA }, clock)).ok).toBe(true);
    // R4: approved, polled twice, then cancelled by the member (its tokens revoked).
    const r4 = await register(clock);
    await decide(r4, clock, "approve");
    await pollToken(r4, clock);
    clock.advance(60);
    await pollToken(r4, clock);
    const r4Delegation = await getDb().delegation.findUniqueOrThrow({ where: { registrationId: r4.registrationId } });
    expect((await cancelDelegation(ada.id, r4Delegation.id, clock)).outcome).toBe("cancelled");
    // Rate-limit windows: three clients, one of them refused.
    for (const ip of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.3", "10.0.0.3"]) await hitRateLimit(RULE, ip, clock);
    expect((await hitRateLimit(RULE, "10.0.0.3", clock)).allowed).toBe(false);
    // Shared-state once-keys (a nonce's, kept 10 minutes): over by the midday pass.
    for (const nonce of ["n1", "n2"])
      expect(await acceptOnceInDatabase({ scope: "janitor-test", key: nonce, untilEpochSeconds: clock.now().getTime() / 1000 + 600 }, clock.now().getTime())).toBe(true);
    // An A2A task left working (terminal ones prune on write; this one waits for the janitor).
    await writeTasks([{ task: task("day0-task"), at: clock.now() }]);
    // A janitor pass during the day removes nothing live (only the windows that are over).
    clock.advance(2 * 3600);
    const midday = removed(await runJanitorPass({ clock, batchSize: 2 }));
    expect(midday).toMatchObject({ AccessToken: 0, ClaimAttempt: 0, Registration: 0, A2ATask: 0, AuditEvent: 0 });
    expect(midday.RateLimitBucket).toBe(3);
    // The once-keys' ten minutes are over: gone at midday.
    expect(midday.SharedState).toBe(2);
    for (const ip of ["10.0.0.1", "10.0.0.2"]) await hitRateLimit(RULE, ip, clock);

    // ---- day 1: R7 registers and is never decided (its claim ends 6 days before the final pass: kept).
    clock.set(new Date(T0 + DAY * 1000 + 60_000));
    const r7 = await register(clock);

    // ---- day 8
    clock.set(new Date(end - 20 * 60 * 1000));
    const r5 = await register(clock); // pending, its attempt live
    const r6 = await register(clock);
    await decide(r6, clock, "approve");
    const r6Poll = await pollToken(r6, clock); // live token
    clock.advance(60);
    const r6Second = await pollToken(r6, clock);
    await revokeAccessToken(r6Second.accessToken, clock); // revoked minutes ago: kept a day
    await writeTasks([{ task: task("day8-task"), at: clock.now() }]);
    clock.set(new Date(end));
    await hitRateLimit(RULE, "10.0.0.9", clock); // a window still running at the final pass
    await acceptOnceInDatabase({ scope: "janitor-test", key: "n9", untilEpochSeconds: end / 1000 + 600 }, end); // still kept

    const before = await counts();
    const auditKept = await getDb().auditEvent.count({ where: { at: { gte: new Date(end - 400 * DAY * 1000) } } });
    expect(before.AuditEvent - auditKept).toBe(2);

    const report = removed(await runJanitorPass({ clock, batchSize: 2 }));
    const after = await counts();
    // Tokens: R1's two (revoked; expired), R4's two → gone; R6's live one and the one revoked minutes ago stay.
    expect(after.AccessToken - start.AccessToken).toBe(2);
    // Registrations: R2 (denied) and R3 (never decided) are gone; R1, R4 (approved), R5, R6, R7 stay.
    expect(after.Registration - start.Registration).toBe(5);
    expect(await getDb().registration.count({ where: { id: { in: [r2.registrationId, r3.registrationId] } } })).toBe(0);
    // Attempts: the approved ones of R1, R4, R6 and R5's live one; R7's expired one went, R2's and R3's with their registrations.
    expect(after.ClaimAttempt - start.ClaimAttempt).toBe(4);
    expect(await getDb().claimAttempt.count({ where: { registrationId: r7.registrationId } })).toBe(0);
    expect(after.Delegation - start.Delegation).toBe(3);
    expect(after.RateLimitBucket).toBe(1);
    expect(after.SharedState).toBe(1);
    expect(after.A2ATask - start.A2ATask).toBe(1);
    expect(await getDb().a2ATask.findUnique({ where: { id: "day8-task" } })).not.toBeNull();
    expect(after.AuditEvent).toBe(auditKept);
    expect(report).toEqual({
      AccessToken: 4,
      ClaimAttempt: 3, // R3's closed and expired ones and R7's; R2's denied one left with its registration (cascade)
      Registration: 2,
      RateLimitBucket: 2,
      SharedState: 0,
      A2ATask: 1,
      AuditEvent: 2,
      AgentReport: 0,
    });

    // The lifecycle answers as before for what was removed, and the live rows still work.
    expect(await pollClaim(r3.claimToken, clock)).toEqual({ ok: false, error: "invalid_grant" });
    expect(await refreshClaim({ claimToken: r7.claimToken, email: ADA }, clock)).toEqual({ ok: false, error: "claim_expired" });
    expect(await verifyAccessToken(r6Poll.accessToken, clock)).not.toBeNull();
    // R5's attempt ran out 10 minutes ago: kept, so its poll still says expired_token.
    expect(await pollClaim(r5.claimToken, clock)).toEqual({ ok: false, error: "expired_token" });

    // A second pass finds nothing more.
    expect(removed(await runJanitorPass({ clock }))).toEqual({
      AccessToken: 0,
      ClaimAttempt: 0,
      Registration: 0,
      RateLimitBucket: 0,
      SharedState: 0,
      A2ATask: 0,
      AuditEvent: 0,
      AgentReport: 0,
    });
  });

  it("deletes in batches of the given size until a short batch, and honours the per-pass cap", async () => {
    const clock = new ManualClock(Date.UTC(2026, 1, 1)); // before the first test's last window ends
    for (let i = 0; i < 7; i++) await hitRateLimit(RULE, `batch-${i}`, clock);
    clock.advance(RULE.windowSeconds);
    expect(removed(await runJanitorPass({ clock, batchSize: 3, maxBatchesPerTable: 2 })).RateLimitBucket).toBe(6);
    expect(removed(await runJanitorPass({ clock, batchSize: 3 })).RateLimitBucket).toBe(1);
  });

  it("runs one pass at a time across instances (PostgreSQL advisory lock); SQLite passes of one process share the work", async () => {
    const clock = new ManualClock(Date.UTC(2026, 1, 2));
    for (let i = 0; i < 4; i++) await hitRateLimit(RULE, `lock-${i}`, clock);
    clock.advance(RULE.windowSeconds);
    if (sqlProvider() === "postgres") {
      // Another instance: its own connection holding the janitor's lock.
      const other = new Client({ connectionString: getConfig().databaseUrl });
      await other.connect();
      try {
        await other.query(`SELECT pg_advisory_lock($1::bigint)`, [JANITOR_LOCK_KEY]);
        expect(await runJanitorPass({ clock })).toEqual({ ran: false, reason: "another instance holds the janitor lock" });
        await other.query(`SELECT pg_advisory_unlock($1::bigint)`, [JANITOR_LOCK_KEY]);
      } finally {
        await other.end();
      }
      const passes = await Promise.all([runJanitorPass({ clock }), runJanitorPass({ clock })]);
      const ran = passes.filter((pass) => pass.ran);
      expect(ran.length).toBeGreaterThanOrEqual(1);
      expect(ran.reduce((sum, pass) => sum + removed(pass).RateLimitBucket!, 0)).toBe(4);
    } else {
      const passes = await Promise.all([runJanitorPass({ clock, batchSize: 1 }), runJanitorPass({ clock, batchSize: 1 })]);
      expect(passes.reduce((sum, pass) => sum + removed(pass).RateLimitBucket!, 0)).toBe(4);
    }
    expect(await getDb().rateLimitBucket.count({ where: { key: { startsWith: `${RULE.name}:lock-` } } })).toBe(0);
  });
});

/** Every DELETE statement one janitor pass runs, as the driver receives it (SQLite `?`, PostgreSQL `$n`). */
async function deletesOfAPass(): Promise<string[]> {
  const statements = await sqlRunDuring(() => runJanitorPass({ clock: new ManualClock(Date.UTC(2026, 5, 1)) }));
  return [...new Set(statements.filter((sql) => /^\s*DELETE\b/i.test(sql)))];
}

describe("janitor plans", () => {
  it("finds what it removes through indexes: no statement of a pass, nor a foreign-key cascade it sets off, reads a whole table", async () => {
    const deletes = await deletesOfAPass();
    expect(deletes.length).toBe(8); // one per table of JANITOR_TABLES
    // The janitor's DELETEs take a time and, last, a LIMIT.
    expect(await statementsReadingWholeTables(deletes, (index, count) => (index === count - 1 && sqlProvider() === "postgres" ? 25 : "2026-01-01T00:00:00Z"))).toEqual([]);
    if (sqlProvider() === "postgres") {
      const client = new Client({ connectionString: getConfig().databaseUrl });
      await client.connect();
      try {
        // PostgreSQL runs a cascade as a trigger's query, outside EXPLAIN: each foreign key that points at a table the
        // janitor deletes from must have an index leading with its column, or every deleted row reads the whole child.
        const uncovered = await client.query<{ constraint: string }>(`
          SELECT c.conname AS "constraint" FROM pg_constraint c
          WHERE c.contype = 'f' AND c.confrelid::regclass::text IN ('"AccessToken"', '"ClaimAttempt"', '"Registration"', '"RateLimitBucket"', '"SharedState"', '"A2ATask"', '"AuditEvent"', '"Delegation"')
            AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1])`);
        expect(uncovered.rows).toEqual([]);
        // The id range (lib/ids) must hold in a linguistic collation too (hosted databases often default to one).
        const times = Array.from({ length: 400 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + ((i * 7919) % 400) * 997 + (i % 3)));
        const ids = times.map((at) => timeOrderedId(at));
        const bounds = times.map((_, i) => firstTimeOrderedIdAt(times[(i * 31) % times.length]!));
        const ordered = await client.query<{ before: boolean }>(`SELECT a < b COLLATE "en-x-icu" AS "before" FROM unnest($1::text[], $2::text[]) AS t(a, b)`, [ids, bounds]);
        expect(ordered.rows.map((row) => row.before)).toEqual(ids.map((id, i) => id < bounds[i]!));
        expect(new Set(ordered.rows.map((row) => row.before)).size).toBe(2);
      } finally {
        await client.end();
      }
    }
  });
});

describe("janitor cron route", () => {
  it("runs a pass with Authorization: Bearer <CRON_SECRET> and answers 401 otherwise", async () => {
    const { handleJanitorCron } = await import("@/lib/operator/cron");
    const call = async (authorization?: string) =>
      webResponse(await handleJanitorCron(apiRequest(new Request("http://localhost/api/cron/janitor", { headers: authorization ? { Authorization: authorization } : {} }))));
    expect((await call("Bearer cron-secret-0123456789")).status).toBe(401); // no CRON_SECRET set: nothing matches
    useTestConfig({ CRON_SECRET: "cron-secret-0123456789" });
    try {
      expect((await call()).status).toBe(401);
      expect((await call("Bearer cron-secret-012345678")).status).toBe(401);
      const res = await call("Bearer cron-secret-0123456789");
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.json()).toMatchObject({ ran: true, removed: { AccessToken: expect.any(Number), AuditEvent: expect.any(Number) } });
    } finally {
      useTestConfig();
    }
  });
});

describe("in-process janitor", () => {
  it("runs passes on its interval and stops", async () => {
    const { startJanitor } = await import("@/lib/operator/janitor");
    const passes: unknown[] = [];
    const stop = startJanitor({ intervalSeconds: 0.05, firstDelaySeconds: 0, onPass: (outcome) => passes.push(outcome) });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await stop();
    const seen = passes.length;
    expect(seen).toBeGreaterThanOrEqual(2);
    expect(passes.every((outcome) => "report" in (outcome as object))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(passes.length).toBe(seen);
  });
});
