// The one place that opens the database: the driver adapter and generated client are chosen from DATABASE_URL.
import type BetterSqlite3 from "better-sqlite3";
import type { Pool } from "pg";
import { PrismaClient as SqliteClient } from "@/lib/generated/sqlite/client";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { getConfig } from "@/lib/config";
import { ConnectionGate } from "@/lib/db/sql/gate";
import { postgresAppAdapterFactory, sqliteAppAdapterFactory } from "@/prisma/adapters";

/** Both generated clients have the same models (one schema); the SQLite client's type stands for both. */
export type Db = SqliteClient;
/** The client handed to an interactive transaction callback. */
export type DbTransaction = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * The driver connection behind a client, shared with lib/db/sql: SQLite's one better-sqlite3 connection
 * (known once Prisma has connected) with the gate both take for transactions, or PostgreSQL's pool.
 */
export type SharedConnection =
  | { provider: "sqlite"; gate: ConnectionGate; database: BetterSqlite3.Database | null; connect(): Promise<void> }
  | { provider: "postgres"; pool: Pool };

interface OpenDb {
  url: string;
  client: Db;
  connection: SharedConnection;
}

// On globalThis: Next bundles instrumentation and route modules separately, and each bundle would otherwise
// have its own client, connection and gate.
const globalForDb = globalThis as unknown as { agentGateDb?: OpenDb };

function openDb(url: string): OpenDb {
  if (url.startsWith("file:")) {
    const gate = new ConnectionGate();
    const connection: Extract<SharedConnection, { provider: "sqlite" }> = { provider: "sqlite", gate, database: null, connect: () => Promise.resolve() };
    const client = new SqliteClient({
      adapter: sqliteAppAdapterFactory(url, { gate, onConnect: (database) => (connection.database = database) }),
    });
    connection.connect = () => client.$connect();
    return { url, client, connection };
  }
  const { factory, pool } = postgresAppAdapterFactory(url);
  // Structurally identical API; only the provider differs.
  const client = new PostgresClient({ adapter: factory }) as unknown as Db;
  return { url, client, connection: { provider: "postgres", pool } };
}

export function createDb(url: string): Db {
  return openDb(url).client;
}

function currentDb(): OpenDb {
  const url = getConfig().databaseUrl;
  const current = globalForDb.agentGateDb;
  if (current && current.url === url) return current;
  const opened = openDb(url);
  globalForDb.agentGateDb = opened;
  return opened;
}

/** The shared client for this process (one per DATABASE_URL). */
export function getDb(): Db {
  return currentDb().client;
}

/** The driver connection of getDb()'s client, for lib/db/sql. */
export function getSharedConnection(): SharedConnection {
  return currentDb().connection;
}

/** Runs `fn` in one interactive transaction (every state change is one transaction, CONTRACT.md §11). */
export function transaction<T>(fn: (tx: DbTransaction) => Promise<T>): Promise<T> {
  return getDb().$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
}
