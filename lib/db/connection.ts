// Opens the process's one database connection from DATABASE_URL: SQLite through one better-sqlite3
// connection (behind a gate, ./sql/gate.ts), or PostgreSQL through one pg pool. Every store reads and
// writes through it (./index.ts); Prisma is used only by the CLI (migrations) and tests (inspection).
import BetterSqlite3 from "better-sqlite3";
import { Pool } from "pg";
import { getConfig } from "@/lib/config";
import { BACKSTOP_PAGES, checkpointerRunsFor } from "./sqlite-checkpoint-state";
import { ConnectionGate } from "./sql/gate";
import { perUrl, takePerUrl } from "./per-url";
import { sqliteFilePath } from "./sqlite-path";
import { WalSync } from "./sql/wal-sync";

/**
 * `walSync`: what a commit's caller awaits before it answers (./sql/wal-sync.ts); null when the database could not
 * use WAL mode and commits sync themselves (synchronous = FULL).
 */
export type SqliteConnection = {
  provider: "sqlite";
  gate: ConnectionGate;
  database: BetterSqlite3.Database;
  walSync: WalSync | null;
};
export type PostgresConnection = { provider: "postgres"; pool: Pool };
export type SharedConnection = SqliteConnection | PostgresConnection;

/**
 * The app's SQLite connection, in WAL mode. In the default rollback-journal mode every commit creates, syncs and
 * deletes a journal file (the Node thread blocked meanwhile); in WAL mode a commit is one append and readers never
 * block the writer. synchronous = NORMAL: COMMIT does not fsync on the Node thread; the log is synced off it
 * (./sql/wal-sync.ts) before any answer that depends on the commit, so a power loss cannot undo an answered
 * revocation, denial or lock (issue 32). Should WAL mode be unavailable, every commit syncs itself (FULL).
 */
export function openSqliteDatabase(url: string): BetterSqlite3.Database {
  const file = sqliteFilePath(url);
  const database = new BetterSqlite3(file, { fileMustExist: false });
  const mode = database.pragma("journal_mode = WAL", { simple: true });
  database.pragma(mode === "wal" ? "synchronous = NORMAL" : "synchronous = FULL");
  // A worker checkpoints off the event loop (./sqlite-checkpointer.ts); this connection's own is the backstop.
  if (checkpointerRunsFor(file)) database.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  // Without statistics SQLite may pick Member_publicProfile_idx (two values) over displayNameKey for a name
  // lookup and scan most members: a bounded PRAGMA optimize analyzes tables without (or with stale) statistics.
  database.pragma("analysis_limit = 400");
  database.pragma("optimize = 0x10002");
  return database;
}

/**
 * PostgreSQL: one pool per process; idle connections do not keep a finished script alive. DATABASE_POOL_MAX
 * bounds the connections of one instance; every statement is cancelled by the server after
 * DATABASE_STATEMENT_TIMEOUT_MS (getConfig().operations), so a stuck query cannot hold a connection.
 */
export function openPostgresPool(url: string): Pool {
  const { databasePoolMax, databaseStatementTimeoutMs } = getConfig().operations;
  return new Pool({ connectionString: url, allowExitOnIdle: true, max: databasePoolMax, statement_timeout: databaseStatementTimeoutMs });
}

function openSqlite(url: string): SqliteConnection {
  const database = openSqliteDatabase(url);
  const walSync = database.pragma("journal_mode", { simple: true }) === "wal" ? WalSync.forDatabaseFile(sqliteFilePath(url)) : null;
  return { provider: "sqlite", gate: new ConnectionGate(), database, walSync };
}

function open(url: string): SharedConnection {
  if (url.startsWith("file:")) return openSqlite(url);
  return { provider: "postgres", pool: openPostgresPool(url) };
}

/** The connection of this process (opened on first use, one per DATABASE_URL). */
export function sharedConnection(): SharedConnection {
  return perUrl("agentGateDb", getConfig().databaseUrl, open);
}

/** Closes the connection (scripts and a server shutting down); the next use opens a new one. */
export async function closeConnection(): Promise<void> {
  const connection = takePerUrl<SharedConnection>("agentGateDb");
  if (!connection) return;
  if (connection.provider === "sqlite") {
    connection.database.close();
    connection.walSync?.close();
  } else await connection.pool.end();
}
