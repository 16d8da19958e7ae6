// Work the server does beside a scenario's load, for the operator scenarios of bench/run.ts (issues #16 and
// #17): a webhook backlog its in-process delivery loop drains to a receiver in this process, and the janitor
// removing a seeded mass of expired access tokens. Each is prepared before the load generator starts, begins
// with its warm-up, and reports once the load is over how much it got done during the measured seconds and
// how long it took in all.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import readline from "node:readline";
import Database from "better-sqlite3";
import { Webhook } from "standardwebhooks";
import { sqliteFilePath } from "@/prisma/adapters";
import { ROOT } from "../scripts/lib";

export interface SideWorkReport {
  /** Lines printed under the table and stored in the results file. */
  notes: string[];
  /** What makes the run unfit to report (the work did not happen, or went wrong). */
  problems: string[];
}

export interface SideWork {
  /** Before the load generator starts: everything that takes time, so the work itself starts at once. */
  prepare(): Promise<void>;
  /** The load's warm-up began: the work starts. */
  start(): void;
  /** The load's measured seconds began. */
  measure(): void;
  /** The load has ended: waits (up to its limit) for the work to finish, then reports. */
  finish(): Promise<SideWorkReport>;
}

const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const count = (n: number): string => n.toLocaleString("en-US");
const rate = (n: number, ms: number): string => `${count(Math.round(n / Math.max(0.001, ms / 1000)))}/s`;

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/**
 * A backlog of `events` webhook events for one endpoint: a receiver here that verifies every signature
 * (Standard Webhooks) and answers 204. The events are written when the load's warm-up begins; the server's
 * own delivery loop (WEBHOOK_ALLOW_PRIVATE=1 lets it reach 127.0.0.1) fans them out and delivers them.
 */
export function webhookBacklog(env: NodeJS.ProcessEnv, events: number, drainTimeoutMs: number): SideWork {
  const receivedAt = new Map<string, number>();
  let duplicates = 0;
  let badSignatures = 0;
  let secret = "";
  let committedAt = 0;
  let measureAt = 0;
  let deliveredAtMeasure = 0;
  let seeder: ReturnType<typeof spawn> | undefined;
  let lines: AsyncIterator<string> | undefined;
  let committed: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const headers = {
        "webhook-id": String(req.headers["webhook-id"] ?? ""),
        "webhook-timestamp": String(req.headers["webhook-timestamp"] ?? ""),
        "webhook-signature": String(req.headers["webhook-signature"] ?? ""),
      };
      try {
        new Webhook(secret).verify(body, headers);
      } catch {
        badSignatures++;
        res.writeHead(401).end();
        return;
      }
      if (receivedAt.has(headers["webhook-id"])) duplicates++;
      else receivedAt.set(headers["webhook-id"], Date.now());
      res.writeHead(204).end();
    });
  });
  const nextLine = async (): Promise<Record<string, unknown>> => {
    const line = await lines?.next();
    if (!line || line.done) throw new Error("bench/seed-ops.ts webhooks ended early");
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  return {
    async prepare() {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      seeder = spawn(TSX, [path.join("bench", "seed-ops.ts"), "webhooks", url, String(events)], { cwd: ROOT, env, stdio: ["pipe", "pipe", "inherit"] });
      lines = readline.createInterface({ input: seeder.stdout! })[Symbol.asyncIterator]();
      secret = String((await nextLine()).secret);
    },
    start() {
      seeder?.stdin?.end("go\n");
      committed = nextLine().then((line) => void (committedAt = Number(line.committedAt)));
    },
    measure() {
      measureAt = Date.now();
      deliveredAtMeasure = receivedAt.size;
    },
    async finish() {
      const loadEndedAt = Date.now();
      const deliveredAtEnd = receivedAt.size;
      const problems: string[] = [];
      try {
        await committed;
      } catch (error) {
        problems.push(`webhook backlog: ${(error as Error).message}`);
      }
      const drained = await until(() => receivedAt.size >= events, drainTimeoutMs);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const inWindow = deliveredAtEnd - deliveredAtMeasure;
      const lastAt = Math.max(0, ...receivedAt.values());
      const firstAt = Math.min(...receivedAt.values());
      // When the server's loop fanned the events out (one delivery row each), from the events' own rows.
      const reader = new Database(sqliteFilePath(String(env.DATABASE_URL)), { readonly: true, fileMustExist: true });
      const fanOut = reader.prepare(`SELECT MIN("fannedOutAt") AS "first", MAX("fannedOutAt") AS "last" FROM "WebhookEvent"`).get() as {
        first: string | null;
        last: string | null;
      };
      reader.close();
      const since = (iso: string | null): string => (iso ? seconds(Date.parse(iso) - committedAt) : "never");
      if (inWindow === 0) problems.push("webhook backlog: nothing delivered during the measured seconds");
      if (!drained) problems.push(`webhook backlog: ${receivedAt.size} of ${events} delivered ${seconds(drainTimeoutMs)} after the load`);
      if (badSignatures > 0) problems.push(`webhook backlog: ${badSignatures} deliveries failed signature verification`);
      const after = receivedAt.size - deliveredAtEnd;
      const notes = [
        `${count(events)} outbox events for one endpoint, written as the warm-up began: ${count(deliveredAtMeasure)} delivered during the warm-up, ` +
          `${count(inWindow)} during the measured ${seconds(loadEndedAt - measureAt)} (${rate(inWindow, loadEndedAt - measureAt)}); ` +
          (drained
            ? `all ${count(events)} ${seconds(lastAt - committedAt)} after the events were committed` +
              (after > 0 ? ` (the last ${count(after)} alone after the load, ${rate(after, lastAt - loadEndedAt)})` : "")
            : `not drained ${seconds(drainTimeoutMs)} after the load`) +
          `; fan-out ${since(fanOut.first)}–${since(fanOut.last)} and first delivery ${receivedAt.size ? seconds(firstAt - committedAt) : "never"} after the commit, ` +
          `load ended ${seconds(loadEndedAt - committedAt)} after it; ${duplicates} delivered twice, ${badSignatures} bad signatures`,
      ];
      return { notes, problems };
    },
  };
}

interface JanitorCronReport {
  ran: boolean;
  removed?: Record<string, number>;
}

/** The ids bench/seed-ops.ts gives the dead tokens sort below this (and below every UUIDv7 the run issues). */
const SEEDED_DEAD_IDS_END = "00000000-0000-7001";

/**
 * The janitor removing `expired` access tokens seeded dead (bench/seed-ops.ts expired-tokens) while the load
 * runs: its passes run in the server process through GET /api/cron/janitor (the same runJanitorPass as the
 * in-process janitor of `npm start`, 100 batches of 500 per table per call), called back to back until a
 * call finds nothing more: a harder pace than `npm start`'s one pass of 200 batches every 5 minutes. The
 * seeded rows left are counted here on a read-only connection of our own (an index range on their ids).
 */
export function janitorMillion(databaseUrl: string, origin: string, cronSecret: string, expired: number, finishTimeoutMs: number): SideWork {
  let reader: Database.Database | undefined;
  const left = (): number => (reader!.prepare(`SELECT COUNT(*) AS n FROM "AccessToken" WHERE "id" < ?`).get(SEEDED_DEAD_IDS_END) as { n: number }).n;
  let removed = 0;
  let calls = 0;
  let startedAt = 0;
  let doneAt = 0;
  let measureAt = 0;
  let leftAtStart = 0;
  let leftAtMeasure = 0;
  let failure: string | null = null;
  let running: Promise<void> = Promise.resolve();
  const drive = async (): Promise<void> => {
    for (;;) {
      const response = await fetch(`${origin}/api/cron/janitor`, { headers: { authorization: `Bearer ${cronSecret}` }, signal: AbortSignal.timeout(120_000) });
      const report = (await response.json()) as JanitorCronReport;
      calls++;
      if (response.status !== 200 || !report.ran || !report.removed) throw new Error(`janitor cron answered ${response.status} ${JSON.stringify(report)}`);
      removed += report.removed.AccessToken ?? 0;
      if ((report.removed.AccessToken ?? 0) === 0) return;
    }
  };
  return {
    async prepare() {
      reader = new Database(sqliteFilePath(databaseUrl), { readonly: true, fileMustExist: true });
      leftAtStart = left();
    },
    start() {
      startedAt = Date.now();
      running = drive().then(
        () => void (doneAt = Date.now()),
        (error: unknown) => void (failure = (error as Error).message),
      );
    },
    measure() {
      measureAt = Date.now();
      leftAtMeasure = left();
    },
    async finish() {
      const loadEndedAt = Date.now();
      const leftAtEnd = left();
      const finished = await Promise.race([running.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), finishTimeoutMs))]);
      const leftAfter = left();
      reader?.close();
      const inWindow = leftAtMeasure - leftAtEnd;
      const problems: string[] = [];
      if (leftAtStart !== expired) problems.push(`janitor: ${leftAtStart} seeded dead tokens found, not ${expired}`);
      if (failure) problems.push(`janitor: ${failure}`);
      else if (!finished) problems.push(`janitor: ${expired - leftAfter} of ${expired} expired tokens removed ${seconds(finishTimeoutMs)} after the load`);
      if (inWindow === 0 && leftAtMeasure > 0) problems.push("janitor: no expired token removed during the measured seconds");
      if (leftAtMeasure === 0) problems.push("janitor: every expired token was gone before the measured seconds began (seed more: --expired-tokens)");
      if (finished && !failure && (leftAfter !== 0 || removed !== expired))
        problems.push(`janitor: removed ${removed} access tokens, ${leftAfter} of the ${expired} seeded dead left`);
      const notes = [
        `${count(expired)} expired access tokens: ${count(leftAtStart - leftAtMeasure)} removed during the warm-up, ${count(inWindow)} during the measured ` +
          `${seconds(loadEndedAt - measureAt)} (${rate(inWindow, loadEndedAt - measureAt)}); ` +
          (finished && !failure ? `all ${count(removed)} in ${seconds(doneAt - startedAt)} (${calls} cron calls, ${rate(removed, doneAt - startedAt)} overall)` : "not finished"),
      ];
      return { notes, problems };
    },
  };
}
