// The janitor (issue #17 item 4): keeps the growing tables at their live rows. Each table's store owns its
// delete (one writer per table); this module only decides the cutoffs and runs the deletes in short batches:
// each batch is one statement of at most `batchSize` rows (its own short transaction on SQLite, a LIMITed
// delete on PostgreSQL), and after each batch the pass pauses in proportion to the batch's time (./pacing).
// It yields to requests: while they are being served, batches shrink (a SQLite batch runs on the loop) and
// the work drops to the pacer's floor (3 % of wall time); on an idle server it runs flat out, a turn of the
// loop between batches, so a backlog left by a busy hour is worked off as soon as the load stops.
// On PostgreSQL one instance at a time runs a pass: a session advisory lock held on one pooled client for
// the pass (released by PostgreSQL itself if that connection dies, so a crashed instance never blocks it).
import type { PoolClient } from "pg";
import { deleteExpiredTasks } from "@/lib/a2a/task-store";
import { deleteAuditEventsBefore } from "@/lib/audit";
import { systemClock, type Clock } from "@/lib/clock";
import { assertOutsideTransaction } from "@/lib/db";
import { sharedConnection } from "@/lib/db/connection";
import { deleteEndedWindows } from "@/lib/rate-limit";
import { deleteEndedSharedState } from "@/lib/shared-state/postgres";
import { deleteDeadTokensBefore } from "@/lib/grants/access-tokens";
import { deleteEndedAttemptsBefore } from "@/lib/grants/claim-attempts";
import { deleteUnapprovedBefore } from "@/lib/grants/registrations";
import { REPORT_RETENTION_DAYS } from "@/lib/consent";
import { deleteReportsBefore } from "@/lib/consent/reports";
import { getConfig } from "@/lib/config";
import { errorLog } from "@/lib/observability/log";
import { BackgroundPacer, type PacingOptions } from "@/lib/background/pacing";

const DAY_MS = 24 * 3600 * 1000;
/** Tokens stay a day after they expire or are revoked (an operator can still trace a late call). */
export const DEAD_TOKEN_GRACE_MS = DAY_MS;
/** Attempts end with the outer claim (24 h): one lifetime later their registration's claim has ended too. */
export const ENDED_ATTEMPT_GRACE_MS = DAY_MS;
/** Registrations never approved are kept 7 days after their outer claim ended. */
export const UNAPPROVED_REGISTRATION_GRACE_MS = 7 * DAY_MS;
/** PostgreSQL deletes run off the event loop (LIMITed deletes of this many rows). */
export const DEFAULT_BATCH_SIZE = 500;
/** SQLite deletes run on the event loop, synchronously: ~100 rows keep one batch to a few milliseconds. */
export const SQLITE_BATCH_SIZE = 100;
/** While requests are being served, batches this small (a quarter): a request waits on one at most. */
export const BUSY_BATCH_SIZE = { sqlite: 25, postgresql: 125 } as const;
/** Duty cycle on an idle server: nothing to yield to, only a loop turn between batches. */
export const IDLE_DUTY_CYCLE = 1;
/** Any number that fits a bigint; names this service's lock among others on the same server. */
export const JANITOR_LOCK_KEY = "4711001717";

export const JANITOR_TABLES = ["AccessToken", "ClaimAttempt", "Registration", "RateLimitBucket", "SharedState", "A2ATask", "AuditEvent", "AgentReport"] as const;
export type JanitorTable = (typeof JANITOR_TABLES)[number];

export type JanitorReport = { ran: true; removed: Record<JanitorTable, number> } | { ran: false; reason: "another instance holds the janitor lock" };

export interface JanitorPassOptions {
  clock?: Clock;
  batchSize?: number;
  /** Stops a table after this many batches in one pass (the next pass goes on); unlimited by default. */
  maxBatchesPerTable?: number;
  auditRetentionDays?: number;
  /** Stops starting batches once the pass has run this long (ms; a cron function's time limit); unlimited by default. */
  budgetMs?: number;
  /** Batch size while requests are being served (default: BUSY_BATCH_SIZE, at most batchSize). */
  busyBatchSize?: number;
  /** The pause after each batch (duty cycles; injectable clock, sleep and load signal for tests). */
  pacing?: PacingOptions;
}

export type BatchDelete = (limit: number) => Promise<number>;

export interface BatchRun {
  batchSize: number;
  /** The batch size while the pacer sees requests being served (default batchSize). */
  busyBatchSize?: number;
  maxBatches: number;
  pacer: BackgroundPacer;
  /** The pacer's time at which the pass must stop starting batches. */
  stopAt: number;
}

/**
 * Deletes in batches until one comes back short, pausing after each full batch in proportion to its time;
 * each batch is the smaller size while requests are being served.
 */
export async function deleteInBatches(remove: BatchDelete, run: BatchRun): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < run.maxBatches && run.pacer.now() < run.stopAt; batch++) {
    const limit = run.busyBatchSize !== undefined && run.pacer.busy() ? Math.min(run.busyBatchSize, run.batchSize) : run.batchSize;
    const { result: removed, workMs } = await run.pacer.measure(() => remove(limit));
    total += removed;
    if (removed < limit) break;
    await run.pacer.rest(workMs);
  }
  return total;
}

async function sweep(options: JanitorPassOptions, provider: "sqlite" | "postgresql"): Promise<Record<JanitorTable, number>> {
  const now = (options.clock ?? systemClock).now().getTime();
  const pacer = new BackgroundPacer({ dutyCycle: IDLE_DUTY_CYCLE, ...options.pacing });
  const batchSize = options.batchSize ?? (provider === "sqlite" ? SQLITE_BATCH_SIZE : DEFAULT_BATCH_SIZE);
  const run: BatchRun = {
    batchSize,
    busyBatchSize: Math.min(options.busyBatchSize ?? BUSY_BATCH_SIZE[provider], batchSize),
    maxBatches: options.maxBatchesPerTable ?? Number.POSITIVE_INFINITY,
    pacer,
    stopAt: options.budgetMs === undefined ? Number.POSITIVE_INFINITY : pacer.now() + options.budgetMs,
  };
  const retentionDays = options.auditRetentionDays ?? getConfig().operations.auditRetentionDays;
  const at = (msAgo: number) => new Date(now - msAgo);
  const plan: [JanitorTable, BatchDelete][] = [
    ["AccessToken", (limit) => deleteDeadTokensBefore(at(DEAD_TOKEN_GRACE_MS), limit)],
    ["ClaimAttempt", (limit) => deleteEndedAttemptsBefore(at(ENDED_ATTEMPT_GRACE_MS), limit)],
    ["Registration", (limit) => deleteUnapprovedBefore(at(UNAPPROVED_REGISTRATION_GRACE_MS), limit)],
    ["RateLimitBucket", (limit) => deleteEndedWindows(at(0), limit)],
    ["SharedState", (limit) => deleteEndedSharedState(at(0), limit)],
    ["A2ATask", (limit) => deleteExpiredTasks(at(0), limit)],
    ["AuditEvent", (limit) => deleteAuditEventsBefore(at(retentionDays * DAY_MS), limit)],
    // Reports of requests members did not start (issue 53), with the network hash they keep.
    ["AgentReport", (limit) => deleteReportsBefore(at(REPORT_RETENTION_DAYS * DAY_MS), limit)],
  ];
  const removed = {} as Record<JanitorTable, number>;
  for (const [table, remove] of plan) removed[table] = await deleteInBatches(remove, run);
  return removed;
}

/** Takes the PostgreSQL session lock on a client of its own; null when another instance holds it. */
async function takeLock(client: PoolClient): Promise<boolean> {
  const rows = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1::bigint) AS "locked"`, [JANITOR_LOCK_KEY]);
  return rows.rows[0]?.locked === true;
}

/** One pass over every table; on PostgreSQL skipped (ran: false) while another instance runs one. */
export async function runJanitorPass(options: JanitorPassOptions = {}): Promise<JanitorReport> {
  assertOutsideTransaction("a janitor pass");
  const connection = sharedConnection();
  // SQLite: one process owns the file's one connection; its passes never overlap (startJanitor chains them).
  if (connection.provider === "sqlite") return { ran: true, removed: await sweep(options, "sqlite") };
  const client = await connection.pool.connect();
  let broken: Error | undefined;
  try {
    if (!(await takeLock(client))) return { ran: false, reason: "another instance holds the janitor lock" };
    try {
      return { ran: true, removed: await sweep(options, "postgresql") };
    } finally {
      await client.query(`SELECT pg_advisory_unlock($1::bigint)`, [JANITOR_LOCK_KEY]).catch((error: unknown) => {
        // A client that cannot unlock is dropped: closing its session releases the lock.
        broken = error instanceof Error ? error : new Error("unlock failed");
      });
    }
  } catch (error) {
    broken ??= error instanceof Error ? error : new Error("janitor pass failed");
    throw error;
  } finally {
    client.release(broken);
  }
}

export interface StartJanitorOptions extends JanitorPassOptions {
  /** Seconds between passes (JANITOR_INTERVAL_SECONDS, default 300). */
  intervalSeconds?: number;
  /** Seconds before the first pass (default: one interval, so a start is not slowed). */
  firstDelaySeconds?: number;
  /** What became of each pass (logs, metrics); a failed pass is reported and the next one still runs. */
  onPass?: (outcome: { report: JanitorReport } | { error: unknown }) => void;
}

/**
 * The in-process janitor under `next start`: a pass every interval (never two at once in this process; on
 * PostgreSQL never two across instances). The timer does not keep the process alive. Returns `stop`, which
 * cancels the next pass and waits for a running one.
 */
export function startJanitor(options: StartJanitorOptions = {}): () => Promise<void> {
  const intervalMs = (options.intervalSeconds ?? getConfig().operations.janitorIntervalSeconds) * 1000;
  // Bounded passes in the process: a backlog (a first run on a large table) is worked off over several passes
  // (100,000 rows per table and pass on SQLite, at most ~60 s of paced work every interval).
  const passOptions: JanitorPassOptions = { maxBatchesPerTable: 1000, budgetMs: 60_000, ...options };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runJanitorPass(passOptions)
        .then(
          (report) => options.onPass?.({ report }),
          (error: unknown) => (options.onPass ? options.onPass({ error }) : errorLog(error, "janitor pass")),
        )
        .finally(() => schedule(intervalMs));
    }, delayMs);
    timer.unref();
  };
  schedule((options.firstDelaySeconds ?? intervalMs / 1000) * 1000);

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}

/** "AccessToken 12, ClaimAttempt 0, …" for logs and the CLI. */
export function describeReport(report: JanitorReport): string {
  if (!report.ran) return `skipped: ${report.reason}`;
  return JANITOR_TABLES.map((table) => `${table} ${report.removed[table]}`).join(", ");
}
