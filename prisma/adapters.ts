// Driver-adapter factories of the Prisma CLI configs (migrations, drift checks) and of the Prisma client used
// for inspection by tests and scripts (lib/db/prisma.ts). The app itself never goes through Prisma (lib/db).
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { randomUUID } from "node:crypto";
import { Pool } from "pg";
import { DEFAULT_SQLITE_URL, sqliteFilePath } from "../lib/db/sqlite-path";

export { DEFAULT_SQLITE_URL, sqliteFilePath };

export function sqliteAdapterFactory(url: string | undefined = DEFAULT_SQLITE_URL) {
  return new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(url || DEFAULT_SQLITE_URL)}` });
}

type ScriptRunner = { executeRaw(query: { sql: string; args: unknown[] }): Promise<number>; executeScript(script: string): Promise<void> };

/** Routes argument-less executeRaw calls (whole migration files) through executeScript. */
function replayScriptsWhole<T>(adapter: T): T {
  const runner = adapter as unknown as ScriptRunner;
  const executeRaw = runner.executeRaw.bind(adapter);
  runner.executeRaw = async (query) => {
    if (query.args.length > 0) return executeRaw(query);
    await runner.executeScript(query.sql);
    return 0;
  };
  return adapter;
}

/**
 * For the CLI: the shadow database replays multi-statement migration SQL through executeRaw, which
 * better-sqlite3 rejects (P3006). Statements without arguments go through executeScript instead.
 */
export function sqliteCliAdapterFactory(url: string | undefined) {
  const factory = sqliteAdapterFactory(url);
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => {
    return replayScriptsWhole(await connectToShadowDb());
  };
  return factory;
}

export function postgresAdapterFactory(url: string | undefined) {
  if (!url) throw new Error("DATABASE_URL must be a postgresql:// URL for the PostgreSQL config");
  return new PrismaPg({ connectionString: url });
}

// Schema introspection by the migrate CLI returns columns of type `name` (OID 19), `"char"` (18) and their
// arrays (1003, 1002), which adapter-pg 6.19 cannot map (prisma/orm#27403). For the CLI only, report them
// as text (25) / text[] (1009) by patching the shared query method once.
const PG_TYPE_REMAP: Record<number, number> = { 19: 25, 18: 25, 1003: 1009, 1002: 1009 };
type PerformIO = (query: unknown) => Promise<{ fields: { dataTypeID: number }[] }>;
let cliPatched = false;

export function postgresCliAdapterFactory(url: string | undefined) {
  const factory = postgresAdapterFactory(url);
  // adapter-pg's connectToShadowDb keeps the connection string (so the "shadow" is the real database) and
  // drops before closing its pool: create and drop the shadow database ourselves, with separate parameters.
  factory.connectToShadowDb = async () => {
    const target = new URL(url ?? "");
    const admin = new Pool({ connectionString: url });
    const database = `prisma_shadow_${randomUUID().replace(/-/g, "")}`;
    await admin.query(`CREATE DATABASE "${database}"`);
    const shadow = new PrismaPg(
      {
        host: target.hostname,
        port: Number(target.port || 5432),
        user: decodeURIComponent(target.username),
        password: decodeURIComponent(target.password),
        database,
      },
      { disposeExternalPool: true },
    );
    const adapter = replayScriptsWhole(await shadow.connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await admin.query(`DROP DATABASE IF EXISTS "${database}"`);
      await admin.end();
    };
    return adapter;
  };
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    const queryable = Object.getPrototypeOf(Object.getPrototypeOf(adapter)) as { performIO?: PerformIO };
    if (!cliPatched && typeof queryable.performIO === "function") {
      cliPatched = true;
      const performIO = queryable.performIO;
      queryable.performIO = async function patched(this: unknown, query: unknown) {
        const result = await performIO.call(this, query);
        for (const field of result.fields) field.dataTypeID = PG_TYPE_REMAP[field.dataTypeID] ?? field.dataTypeID;
        return result;
      };
    }
    return adapter;
  };
  return factory;
}
