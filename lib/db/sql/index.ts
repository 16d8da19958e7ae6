// A small raw-SQL executor for the hot paths (token check, claim poll, JWT-bearer exchange): Prisma 6.19
// compiles every query in WebAssembly (~1–3 ms each, bench/README.md), a prepared statement costs
// microseconds. SQL is written once for both providers: PostgreSQL's $1..$n placeholders and Prisma's
// table and column names, quoted. It runs on the connection Prisma uses (SQLite: the one better-sqlite3
// connection, behind the gate of ./gate.ts; PostgreSQL: the shared pool), so raw writes and Prisma's
// writes see each other and never deadlock.
//
// Values: bind Date, boolean, string, number or null (a Date is stored as Prisma stores it: ISO 8601 text
// on SQLite, UTC in a timestamp(3) column on PostgreSQL); read DateTime and Boolean columns back with
// readDate / readOptionalDate / readBoolean. Columns come back as written in the SELECT list (alias with
// AS "camelCase"). PostgreSQL returns bigint (COUNT(*)) as a string: cast to int in the SQL.
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { CustomTypesConfig, Pool, PoolClient } from "pg";
import { getSharedConnection, type SharedConnection } from "@/lib/db";
import type { GateRelease } from "./gate";
import { runInGroup, type GroupConnection } from "./group-commit";
import { toPositional } from "./placeholders";

export type SqlValue = string | number | boolean | Date | null;

const SQL_EXECUTOR = Symbol.for("agent-gate.sql-executor");

/** Runs statements, at top level or inside one transaction. */
export interface SqlExecutor {
  readonly [SQL_EXECUTOR]: true;
  /** Rows of a SELECT (or of a statement with RETURNING). */
  query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs a write; the number of rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

/** Tells a raw executor from a Prisma transaction client (for functions that take either). */
export function isSqlExecutor(value: unknown): value is SqlExecutor {
  return typeof value === "object" && value !== null && (value as Partial<Record<typeof SQL_EXECUTOR, unknown>>)[SQL_EXECUTOR] === true;
}

// ---------------------------------------------------------------- values

/** A DateTime column's value (SQLite: ISO text or epoch milliseconds; PostgreSQL: a Date, parsed as UTC). */
export function readDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  if (typeof value === "string") {
    // SQLite's CURRENT_TIMESTAMP ("2026-01-01 12:00:00") carries no zone and means UTC, as Prisma reads it.
    const zoneless = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value);
    const date = new Date(zoneless ? `${value.replace(" ", "T")}Z` : value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new TypeError(`not a DateTime column value: ${String(value)}`);
}

export function readOptionalDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : readDate(value);
}

/** A Boolean column's value (SQLite: 0/1; PostgreSQL: a boolean). */
export function readBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === 1n;
}

/** Prisma's SQLite adapter stores DateTime as ISO 8601 with "+00:00" and booleans as 0/1. */
export function sqliteValue(value: SqlValue | undefined): string | number | null {
  if (value === undefined) throw new TypeError("missing SQL argument");
  if (value instanceof Date) return value.toISOString().replace("Z", "+00:00");
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/** timestamp(3) WITHOUT time zone holds UTC: send the UTC wall time (an offset would be ignored, not applied). */
export function postgresValue(value: SqlValue | undefined): string | number | boolean | null {
  if (value === undefined) throw new TypeError("missing SQL argument");
  if (value instanceof Date) return value.toISOString().slice(0, -1);
  return value;
}

const TIMESTAMP_OID = 1114;
const parseUtcTimestamp = (text: string): Date => new Date(`${text.replace(" ", "T")}Z`);

// Per query, not pg's global parsers: Prisma's adapter shares the pool and parses values its own way.
const postgresTypes = {
  getTypeParser: (oid: number, format?: "text" | "binary") => (oid === TIMESTAMP_OID && format !== "binary" ? parseUtcTimestamp : pg.types.getTypeParser(oid, format ?? "text")),
} as unknown as CustomTypesConfig;

// ---------------------------------------------------------------- SQLite

type SqliteConnection = Extract<SharedConnection, { provider: "sqlite" }>;

interface PreparedSqlite {
  statement: BetterSqlite3.Statement;
  argumentOrder: number[];
}

// Per connection; a module-level cache is fine (each bundle merely prepares its own copy).
const statementCaches = new WeakMap<BetterSqlite3.Database, Map<string, PreparedSqlite>>();

function prepare(database: BetterSqlite3.Database, sql: string): PreparedSqlite {
  let cache = statementCaches.get(database);
  if (!cache) {
    cache = new Map();
    statementCaches.set(database, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    const positional = toPositional(sql);
    // The adapter sets defaultSafeIntegers(true) on the connection; our integers fit a JS number.
    prepared = { statement: database.prepare(positional.sql).safeIntegers(false), argumentOrder: positional.argumentOrder };
    cache.set(sql, prepared);
  }
  return prepared;
}

function sqliteArguments(prepared: PreparedSqlite, params: readonly SqlValue[]): (string | number | null)[] {
  return prepared.argumentOrder.map((index) => sqliteValue(params[index]));
}

function sqliteExecutor(database: BetterSqlite3.Database): SqlExecutor {
  // better-sqlite3 is synchronous: a settled promise (or the statement's error as a rejection) per call.
  return {
    [SQL_EXECUTOR]: true,
    query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
      try {
        const prepared = prepare(database, sql);
        return Promise.resolve(prepared.statement.all(...sqliteArguments(prepared, params)) as T[]);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    execute(sql: string, params: readonly SqlValue[] = []): Promise<number> {
      try {
        const prepared = prepare(database, sql);
        return Promise.resolve(prepared.statement.run(...sqliteArguments(prepared, params)).changes);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** What lib/db/sql keeps per open database: the executor its statements run on, and group commit's view of it. */
interface SqliteHandles {
  executor: SqlExecutor;
  group: GroupConnection<SqlExecutor>;
}

const handles = new WeakMap<BetterSqlite3.Database, SqliteHandles>();

function handlesOf(connection: SqliteConnection, database: BetterSqlite3.Database): SqliteHandles {
  let made = handles.get(database);
  if (!made) {
    const executor = sqliteExecutor(database);
    made = {
      executor,
      group: { gate: connection.gate, run: (sql) => void prepare(database, sql).statement.run(), inTransaction: () => database.inTransaction, executor },
    };
    handles.set(database, made);
  }
  return made;
}

/** The shared connection, once Prisma has opened it (the adapter connects lazily). */
async function sqliteDatabase(connection: SqliteConnection): Promise<BetterSqlite3.Database> {
  if (!connection.database?.open) await connection.connect();
  const database = connection.database;
  if (!database?.open) throw new Error("the SQLite connection was not shared by the Prisma adapter (lib/db)");
  return database;
}

function topLevelSqlite(connection: SqliteConnection): SqlExecutor {
  // A single statement must not land inside a transaction someone holds open on the one connection.
  const ready = async (): Promise<SqlExecutor> => {
    const database = connection.database?.open ? connection.database : await sqliteDatabase(connection);
    await connection.gate.untilFree();
    return handlesOf(connection, database).executor;
  };
  /** The executor at once when the connection is open and free (the usual case: no promise to wait on). */
  const readyNow = (): SqlExecutor | null => {
    const database = connection.database;
    return database?.open && connection.gate.holder === null ? handlesOf(connection, database).executor : null;
  };
  return {
    [SQL_EXECUTOR]: true,
    query: <T>(sql: string, params?: readonly SqlValue[]) => readyNow()?.query<T>(sql, params) ?? ready().then((q) => q.query<T>(sql, params)),
    execute: (sql: string, params?: readonly SqlValue[]) => readyNow()?.execute(sql, params) ?? ready().then((q) => q.execute(sql, params)),
  };
}

async function sqliteTransaction<T>(connection: SqliteConnection, fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  const database = connection.database?.open ? connection.database : await sqliteDatabase(connection);
  return runInGroup(handlesOf(connection, database).group, fn);
}

// ---------------------------------------------------------------- PostgreSQL

function postgresExecutor(target: Pool | PoolClient): SqlExecutor {
  return {
    [SQL_EXECUTOR]: true,
    async query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
      const result = await target.query({ text: sql, values: params.map(postgresValue), types: postgresTypes });
      return result.rows as T[];
    },
    async execute(sql: string, params: readonly SqlValue[] = []): Promise<number> {
      const result = await target.query({ text: sql, values: params.map(postgresValue), types: postgresTypes });
      return result.rowCount ?? 0;
    },
  };
}

// At PostgreSQL's default READ COMMITTED, like Prisma's transactions: the conditional updates decide races.
async function postgresTransaction<T>(pool: Pool, fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(postgresExecutor(client));
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    try {
      await client.query("ROLLBACK");
      client.release();
    } catch (rollbackError) {
      // A connection that cannot roll back is not returned to the pool.
      client.release(rollbackError instanceof Error ? rollbackError : true);
    }
    throw error;
  }
}

// ---------------------------------------------------------------- the executor of getDb()'s database

/** One top-level executor per shared connection, not one per statement (every Bearer request runs one). */
const topLevelExecutors = new WeakMap<SharedConnection, SqlExecutor>();

function topLevel(): SqlExecutor {
  const connection = getSharedConnection();
  let executor = topLevelExecutors.get(connection);
  if (!executor) {
    executor = connection.provider === "sqlite" ? topLevelSqlite(connection) : postgresExecutor(connection.pool);
    topLevelExecutors.set(connection, executor);
  }
  return executor;
}

/** Rows of one statement, outside any transaction. */
export function query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
  return topLevel().query<T>(sql, params);
}

/** One write outside any transaction; the number of rows it changed. */
export function execute(sql: string, params: readonly SqlValue[] = []): Promise<number> {
  return topLevel().execute(sql, params);
}

/**
 * Runs `fn` in one transaction; statements inside must go through `q` (on SQLite a top-level statement
 * issued from inside would wait for this transaction to end, i.e. forever). Commits when `fn` resolves
 * (on SQLite together with the other transactions started in this event-loop iteration: ./group-commit.ts;
 * the promise settles after the COMMIT), rolls back its own statements when it throws.
 */
export function transaction<T>(fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  const connection = getSharedConnection();
  return connection.provider === "sqlite" ? sqliteTransaction(connection, fn) : postgresTransaction(connection.pool, fn);
}

/**
 * Takes getDb()'s SQLite connection once no statement or transaction runs on it (statements and
 * transactions wait meanwhile, without blocking the event loop); resolves with its release. For the
 * checkpointer's WAL restart (lib/db/sqlite-checkpointer.ts). null on PostgreSQL.
 */
export async function holdSqliteConnection(): Promise<GateRelease | null> {
  const connection = getSharedConnection();
  if (connection.provider !== "sqlite") return null;
  return connection.gate.acquire("checkpoint");
}

/** The provider of getDb()'s database (for the rare statement that must differ). */
export function sqlProvider(): SharedConnection["provider"] {
  return getSharedConnection().provider;
}
