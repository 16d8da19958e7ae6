// Seeding for the operator scenarios of bench/run.ts (bench/side-work.ts drives them). Run as a child process
// with the bench server's environment (DATABASE_URL of the bench's SQLite file):
//
//   tsx bench/seed-ops.ts webhooks <receiver-url> <count>   adds an endpoint for the receiver and prints its secret,
//                                                          then writes <count> outbox events when a line comes on stdin
//   tsx bench/seed-ops.ts expired-tokens <count>           <count> access tokens dead for two days, before the server starts
//
// Rows go in as multi-row INSERTs of BATCH rows inside one transaction per chunk (better-sqlite3), as bench/seed.ts does.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import Database from "better-sqlite3";
import { v7 as timeOrderedId } from "uuid";
import { addEndpoint } from "@/lib/webhooks";
import { closeConnection } from "@/lib/db";
import { SCOPES } from "@/lib/schemas/service-auth";
import { protectedResource } from "@/lib/tokens";
import { sqliteFilePath } from "@/prisma/adapters";

/** 500 rows × at most 12 columns stays under SQLite's 32,766 bound parameters. */
const BATCH = 500;
/** Rows built in memory at a time (a million token rows at once would take about a gigabyte). */
const CHUNK = 50_000;
const DAY_MS = 24 * 3600 * 1000;

type Value = string | number | null;

function openDatabase(): Database.Database {
  const databaseUrl = process.env.DATABASE_URL ?? "";
  if (!databaseUrl.startsWith("file:")) throw new Error("bench/seed-ops.ts fills a SQLite database: DATABASE_URL must be file:…");
  const sqlite = new Database(sqliteFilePath(databaseUrl));
  // The server may be running: wait for its write lock instead of failing.
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma("cache_size = -65536");
  return sqlite;
}

/** Prisma's SQLite adapter stores DateTime as ISO 8601 text with an explicit offset. */
const sqliteDate = (date: Date): string => date.toISOString().replace("Z", "+00:00");

/** Inserts rows (all with the same columns) in one transaction, BATCH rows per statement. */
function insertRows(sqlite: Database.Database, table: string, columns: string[], rows: Value[][]): void {
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  const sql = (n: number) => `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${Array.from({ length: n }, () => tuple).join(", ")}`;
  const full = sqlite.prepare(sql(BATCH));
  sqlite.transaction(() => {
    for (let i = 0; i < rows.length; i += BATCH) {
      const chunk = rows.slice(i, i + BATCH);
      (chunk.length === BATCH ? full : sqlite.prepare(sql(chunk.length))).run(chunk.flat());
    }
  })();
}

/**
 * An endpoint for the bench's receiver (added by the project's own code: its secret is encrypted as the
 * server expects), then, on the caller's word (a line on stdin: the load has begun), `count` events at once.
 */
async function seedWebhookBacklog(url: string, count: number): Promise<void> {
  const endpoint = await addEndpoint({ url });
  await closeConnection();
  const sqlite = openDatabase();
  const now = new Date();
  const rows: Value[][] = [];
  for (let n = 0; n < count; n++) {
    const type = "delegation.requested";
    const data = {
      registration_id: `bench-backlog-${n}`,
      member_id: `bench-member-${n % 1000}`,
      client_name: `Backlog Agent ${n}`,
      scopes: SCOPES,
      claim_expires_at: new Date(now.getTime() + DAY_MS).toISOString(),
    };
    rows.push([timeOrderedId(), type, JSON.stringify({ type, timestamp: now.toISOString(), data }), sqliteDate(now)]);
  }
  // Lines for bench/side-work.ts: the secret to verify with; later, when the backlog became visible.
  console.log(JSON.stringify({ secret: endpoint.secret }));
  process.stdin.resume();
  await once(process.stdin, "data");
  insertRows(sqlite, "WebhookEvent", ["id", "type", "payload", "createdAt"], rows);
  sqlite.close();
  console.log(JSON.stringify({ committedAt: Date.now() }));
}

/**
 * `count` access tokens that expired two days ago (past the janitor's one-day grace), spread over the seeded
 * delegations. Ids are sequential and sort before every token the run issues; hashes are random, as real ones
 * (so the janitor's deletes, in row order, touch random pages of the hash index, as they would in a real
 * table). The table's secondary indexes are dropped for the inserts and built again after them: building an
 * index sorts once, where a million random inserts into it took 1–2.5 minutes on the shared machine.
 */
function seedExpiredTokens(count: number): void {
  const sqlite = openDatabase();
  const delegations = sqlite.prepare(`SELECT "id", "registrationId", "memberId", "scope" FROM "Delegation" ORDER BY "id"`).all() as {
    id: string;
    registrationId: string;
    memberId: string;
    scope: string;
  }[];
  if (delegations.length === 0) throw new Error("no delegations to attach expired tokens to: run bench/seed.ts first");
  const resource = protectedResource();
  const expiredAt = sqliteDate(new Date(Date.now() - 2 * DAY_MS));
  const createdAt = sqliteDate(new Date(Date.now() - 2 * DAY_MS - 3600 * 1000));
  const columns = ["id", "tokenHash", "registrationId", "delegationId", "memberId", "scope", "resource", "grant", "expiresAt", "createdAt"];
  const indexes = sqlite.prepare(`SELECT "name", "sql" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = 'AccessToken' AND "sql" IS NOT NULL`).all() as {
    name: string;
    sql: string;
  }[];
  for (const index of indexes) sqlite.exec(`DROP INDEX "${index.name}"`);
  for (let start = 0; start < count; start += CHUNK) {
    const rows: Value[][] = [];
    for (let n = start; n < Math.min(count, start + CHUNK); n++) {
      const delegation = delegations[n % delegations.length]!;
      const id = `00000000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
      rows.push([
        id,
        randomBytes(32).toString("base64url"),
        delegation.registrationId,
        delegation.id,
        delegation.memberId,
        delegation.scope,
        resource,
        "jwt-bearer",
        expiredAt,
        createdAt,
      ]);
    }
    insertRows(sqlite, "AccessToken", columns, rows);
  }
  for (const index of indexes) sqlite.exec(index.sql);
  sqlite.close();
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === "webhooks" && args.length === 2) return seedWebhookBacklog(args[0]!, Number(args[1]));
  if (command === "expired-tokens" && args.length === 1) return seedExpiredTokens(Number(args[0]));
  throw new Error("usage: tsx bench/seed-ops.ts webhooks <receiver-url> <count> | expired-tokens <count>");
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench/seed-ops.ts: ${(error as Error).message}`);
    process.exit(1);
  },
);
