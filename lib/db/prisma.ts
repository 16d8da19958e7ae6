// A Prisma client for tests and scripts that inspect the database (never the app: stores go through
// lib/db). It has its own connection; a call made inside a store transaction throws at once
// (TransactionScopeError) — on SQLite it would otherwise wait for that transaction's write lock, which
// cannot end while the caller waits on it.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { getConfig } from "@/lib/config";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { PrismaClient as SqliteClient } from "@/lib/generated/sqlite/client";
import { perUrl, takePerUrl } from "./per-url";
import { assertOutsideTransaction } from "./sql";
import { sqliteFilePath } from "./sqlite-path";

/** Both generated clients have the same models (one schema); the SQLite client's type stands for both. */
export type Db = SqliteClient;

function guarded(client: Db): Db {
  return client.$extends({
    query: {
      $allOperations({ operation, args, query }) {
        assertOutsideTransaction(`Prisma's ${operation}`);
        return query(args);
      },
    },
  }) as unknown as Db;
}

/** A new client for this DATABASE_URL (disconnect it when done). */
export function createDb(url: string): Db {
  if (url.startsWith("file:")) return guarded(new SqliteClient({ adapter: new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(url)}` }) }));
  // Structurally identical API; only the provider differs.
  return guarded(new PostgresClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as Db);
}

/** The inspection client of this process (one per DATABASE_URL). */
export function getDb(): Db {
  return perUrl("agentGatePrisma", getConfig().databaseUrl, createDb);
}

/** Disconnects the inspection client (a test file done with its database); the next getDb() opens a new one. */
export async function closeDb(): Promise<void> {
  await takePerUrl<Db>("agentGatePrisma")?.$disconnect();
}
