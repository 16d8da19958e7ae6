// Driver-adapter factories shared by the Prisma CLI configs and lib/db.
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { randomUUID } from "node:crypto";
import { Pool } from "pg";
import type BetterSqlite3 from "better-sqlite3";
import type { ConnectionGate } from "../lib/db/sql/gate";
import { BACKSTOP_PAGES, checkpointerRunsFor } from "../lib/db/sqlite-checkpointer";

export const DEFAULT_SQLITE_URL = "file:./data/app.db";

/** Resolves a `file:` URL to an absolute path relative to the project root (where the CLI and the app run). */
export function sqliteFilePath(url: string): string {
  const raw = url.replace(/^file:/, "");
  return path.isAbsolute(raw) ? raw : path.resolve(/* turbopackIgnore: true */ process.cwd(), raw);
}

export function sqliteAdapterFactory(url: string | undefined = DEFAULT_SQLITE_URL) {
  return new PrismaBetterSQLite3({ url: `file:${sqliteFilePath(url || DEFAULT_SQLITE_URL)}` });
}

/**
 * For the app (lib/db): the same adapter with SQLite's write-ahead log and query-planner statistics. In the default rollback-journal mode
 * every commit creates, syncs and deletes a journal file (about 10 ms on this machine's disk, during which
 * the single Node thread is blocked); in WAL mode a commit is one append (about 0.05 ms) and readers never
 * block the writer. The mode is stored in the file, so later connections (the CLI too) keep it.
 * synchronous = NORMAL (per connection): in WAL mode a commit then no longer waits for an fsync of the log
 * (about 0.3 ms of blocked event loop per commit here, the largest cost of a token exchange); the log is
 * synced at checkpoints. SQLite's documented trade-off: the database can never be corrupted, but a power
 * loss (not a process crash) may undo the last transactions before a checkpoint — here, at worst, a token
 * or an approval of the last moments, which the agent or member simply obtains again.
 */
export function sqliteAppAdapterFactory(url: string | undefined = DEFAULT_SQLITE_URL, share?: SqliteConnectionSharing) {
  const factory = sqliteAdapterFactory(url);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    await adapter.executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    // A worker checkpoints off the event loop (lib/db/sqlite-checkpointer.ts); this connection's own is the backstop.
    if (checkpointerRunsFor(sqliteFilePath(url || DEFAULT_SQLITE_URL))) await adapter.executeScript(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES};`);
    // Without statistics SQLite may pick Member_publicProfile_idx (two values) over displayNameKey for a
    // name lookup and scan most members. SQLite's advice for new connections: a bounded PRAGMA optimize,
    // which analyzes tables that have no (or stale) statistics (~20 ms on the bench's 75,000 rows).
    await adapter.executeScript("PRAGMA analysis_limit = 400; PRAGMA optimize = 0x10002;");
    if (share) shareConnection(adapter as unknown as GatedSqliteAdapter, share);
    return adapter;
  };
  return factory;
}

/** How lib/db/sql shares the app's SQLite connection with Prisma (see lib/db/sql/gate.ts). */
export interface SqliteConnectionSharing {
  gate: ConnectionGate;
  onConnect(database: BetterSqlite3.Database): void;
}

type AdapterQuery = { sql: string; args: unknown[] };
interface GatedSqliteTransaction {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}
/** The parts of adapter-better-sqlite3's adapter the gate wraps (its `client` is the better-sqlite3 connection). */
interface GatedSqliteAdapter {
  client: BetterSqlite3.Database;
  queryRaw(query: AdapterQuery): Promise<unknown>;
  executeRaw(query: AdapterQuery): Promise<number>;
  executeScript(script: string): Promise<void>;
  startTransaction(isolationLevel?: string): Promise<GatedSqliteTransaction>;
}

/**
 * Prisma's interactive transaction holds the gate from BEGIN to COMMIT/ROLLBACK (it runs its COMMIT through
 * the transaction's executeRaw, then calls commit()); Prisma's single statements wait while a raw
 * transaction of lib/db/sql holds it, so they never land inside that transaction, and while the
 * checkpointer holds the connection for a WAL restart (lib/db/sqlite-checkpointer.ts).
 */
function shareConnection(adapter: GatedSqliteAdapter, share: SqliteConnectionSharing): void {
  const { gate } = share;
  /** A single statement of Prisma's, run once no raw transaction or checkpoint hold has the connection. */
  const afterRawTransactions =
    <A, R>(run: (arg: A) => Promise<R>) =>
    async (arg: A): Promise<R> => {
      await gate.untilFree("prisma");
      return run(arg);
    };
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.queryRaw = afterRawTransactions(adapter.queryRaw.bind(adapter));
  adapter.executeRaw = afterRawTransactions(adapter.executeRaw.bind(adapter));
  adapter.executeScript = afterRawTransactions(adapter.executeScript.bind(adapter));
  adapter.startTransaction = async (isolationLevel) => {
    const release = await gate.acquire("prisma");
    let transaction: GatedSqliteTransaction;
    try {
      transaction = await startTransaction(isolationLevel);
    } catch (error) {
      release();
      throw error;
    }
    const commit = transaction.commit.bind(transaction);
    const rollback = transaction.rollback.bind(transaction);
    transaction.commit = () => commit().finally(release);
    transaction.rollback = () => rollback().finally(release);
    return transaction;
  };
  share.onConnect(adapter.client);
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

/**
 * For the app (lib/db): Prisma and lib/db/sql share one pool. Its idle connections do not keep a finished
 * script alive (Prisma's $disconnect leaves a pool it was given open).
 */
export function postgresAppAdapterFactory(url: string): { factory: PrismaPg; pool: Pool } {
  const pool = new Pool({ connectionString: url, allowExitOnIdle: true });
  return { factory: new PrismaPg(pool), pool };
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
