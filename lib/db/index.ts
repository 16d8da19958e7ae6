// The one place that opens the database: the driver adapter and generated client are chosen from DATABASE_URL.
import { PrismaClient as SqliteClient } from "@/lib/generated/sqlite/client";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { getConfig } from "@/lib/config";
import { postgresAdapterFactory, sqliteAppAdapterFactory } from "@/prisma/adapters";

/** Both generated clients have the same models (one schema); the SQLite client's type stands for both. */
export type Db = SqliteClient;
/** The client handed to an interactive transaction callback. */
export type DbTransaction = Parameters<Parameters<Db["$transaction"]>[0]>[0];

const globalForDb = globalThis as unknown as { agentGateDb?: { url: string; client: Db } };

export function createDb(url: string): Db {
  if (url.startsWith("file:")) {
    return new SqliteClient({ adapter: sqliteAppAdapterFactory(url) });
  }
  // Structurally identical API; only the provider differs.
  return new PostgresClient({ adapter: postgresAdapterFactory(url) }) as unknown as Db;
}

/** The shared client for this process (one per DATABASE_URL). */
export function getDb(): Db {
  const url = getConfig().databaseUrl;
  const current = globalForDb.agentGateDb;
  if (current && current.url === url) return current.client;
  const client = createDb(url);
  globalForDb.agentGateDb = { url, client };
  return client;
}

/** Runs `fn` in one interactive transaction (every state change is one transaction, CONTRACT.md §11). */
export function transaction<T>(fn: (tx: DbTransaction) => Promise<T>): Promise<T> {
  return getDb().$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
}
