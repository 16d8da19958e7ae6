// The executor every store uses: statements with PostgreSQL's $1..$n placeholders and Prisma's quoted table
// and column names, one SQL text for both providers, run as prepared statements on the app's one SQLite
// connection (behind the gate of ./gate.ts) or on the pg pool (../connection.ts).
//
// One transaction mechanism: `transaction(fn)` keeps its executor in an AsyncLocalStorage, and `db()` (and
// the top-level `query`/`execute`) hands every store call made inside `fn` that executor, so every store
// call joins the transaction it runs in; a nested `transaction` joins the outer one. Waiting on the
// connection from inside a transaction (the checkpointer's hold, a Prisma call) throws at once instead of
// waiting forever (TransactionScopeError).
//
// Values: bind Date, boolean, string, number or null (a Date is stored as Prisma stores it: ISO 8601 text
// on SQLite, UTC in a timestamp(3) column on PostgreSQL); read DateTime and Boolean columns back with
// readDate / readOptionalDate / readBoolean. Columns come back as written in the SELECT list (alias with
// AS "camelCase"). PostgreSQL returns bigint (COUNT(*)) as a string: cast to int in the SQL.
import { AsyncLocalStorage } from "node:async_hooks";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { CustomTypesConfig, Pool, PoolClient } from "pg";
import { sharedConnection, type SharedConnection, type SqliteConnection } from "../connection";
import type { GateRelease } from "./gate";
import { joinBatch, runInGroup, type GroupBatch, type GroupConnection } from "./group-commit";
import { toPositional } from "./placeholders";
import { bindToActiveTrace, traceChild, tracingOn } from "@/lib/tracing";

export type SqlValue = string | number | boolean | Date | null;

/** Runs statements, at top level or inside one transaction. */
export interface SqlExecutor {
  /** Rows of a SELECT (or of a statement with RETURNING). */
  query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs a write; the number of rows it changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

/** A call that would wait on the connection held by the transaction it runs in. */
export class TransactionScopeError extends Error {
  constructor(what: string) {
    super(`${what} inside a store transaction would wait for that transaction forever; run it before or after the transaction`);
    this.name = "TransactionScopeError";
  }
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
  if (value instanceof Date) return sqliteDate(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/**
 * The last dates written, formatted: the requests of one millisecond write the same "now" and the same expiry
 * (toISOString costs more than the rest of a statement's arguments together). Four fixed slots, not a Map: a
 * long-lived Map that keeps taking new keys reallocates its table in the old generation (bench/README.md).
 */
const DATE_SLOTS = 4;
const slotTimes = new Float64Array(DATE_SLOTS).fill(Number.NaN);
const slotTexts: string[] = new Array<string>(DATE_SLOTS).fill("");
let nextSlot = 0;

function sqliteDate(value: Date): string {
  const time = value.getTime();
  for (let i = 0; i < DATE_SLOTS; i++) if (slotTimes[i] === time) return slotTexts[i]!;
  // An invalid date throws here, before anything is kept.
  const text = value.toISOString().replace("Z", "+00:00");
  slotTimes[nextSlot] = time;
  slotTexts[nextSlot] = text;
  nextSlot = (nextSlot + 1) % DATE_SLOTS;
  return text;
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
    prepared = { statement: database.prepare(positional.sql), argumentOrder: positional.argumentOrder };
    cache.set(sql, prepared);
  }
  return prepared;
}

function sqliteArguments(prepared: PreparedSqlite, params: readonly SqlValue[]): (string | number | null)[] {
  const order = prepared.argumentOrder;
  const values: (string | number | null)[] = new Array(order.length);
  // Each argument is converted once however often the statement names it (the rate-limit upsert names its time six times).
  const converted: (string | number | null | undefined)[] = [];
  for (let i = 0; i < order.length; i++) {
    const index = order[i]!;
    let value = converted[index];
    if (value === undefined) {
      value = sqliteValue(params[index]);
      converted[index] = value;
    }
    values[i] = value;
  }
  return values;
}

/** Runs a statement at once (better-sqlite3 is synchronous): its rows. Throws the statement's error. */
function allRows<T>(database: BetterSqlite3.Database, sql: string, params: readonly SqlValue[]): T[] {
  const prepared = prepare(database, sql);
  return prepared.statement.all(...sqliteArguments(prepared, params)) as T[];
}

/** Runs a write at once: the number of rows it changed. Throws the statement's error. */
function changedRows(database: BetterSqlite3.Database, sql: string, params: readonly SqlValue[]): number {
  const prepared = prepare(database, sql);
  return prepared.statement.run(...sqliteArguments(prepared, params)).changes;
}

function sqliteExecutor(database: BetterSqlite3.Database): SqlExecutor {
  // A settled promise (or the statement's error as a rejection) per call.
  return {
    query: async <T>(sql: string, params: readonly SqlValue[] = []) => allRows<T>(database, sql, params),
    execute: async (sql: string, params: readonly SqlValue[] = []) => changedRows(database, sql, params),
  };
}

/** What lib/db/sql keeps per open database: the executor its statements run on, and group commit's view of it. */
interface SqliteHandles {
  executor: SqlExecutor;
  group: GroupConnection<SqlExecutor>;
}

const handles = new WeakMap<BetterSqlite3.Database, SqliteHandles>();

function handlesOf(connection: SqliteConnection): SqliteHandles {
  const { database } = connection;
  let made = handles.get(database);
  if (!made) {
    const executor = sqliteExecutor(database);
    const { walSync } = connection;
    made = {
      executor,
      group: {
        gate: connection.gate,
        run: (sql) => void prepare(database, sql).statement.run(),
        inTransaction: () => database.inTransaction,
        executor,
        afterCommit: walSync ? () => walSync.afterCommit() : undefined,
      },
    };
    handles.set(database, made);
  }
  return made;
}

function topLevelSqlite(connection: SqliteConnection): SqlExecutor {
  const { database, walSync } = connection;
  const { executor } = handlesOf(connection);
  // A single statement must not land inside a transaction or a checkpoint hold someone has open on the one
  // connection: at once when the gate is free (the usual case: no promise to wait on), else once it is (the
  // statement then runs in the promise's own callback: one promise per waiting statement).
  const query = <T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> =>
    connection.gate.holder === null ? executor.query<T>(sql, params) : connection.gate.untilFree().then(() => allRows<T>(database, sql, params));
  const execute = (sql: string, params: readonly SqlValue[] = []): Promise<number> =>
    connection.gate.holder === null ? executor.execute(sql, params) : connection.gate.untilFree().then(() => changedRows(database, sql, params));
  if (!walSync) return { query, execute };
  // A statement on its own commits on its own: what it wrote is answered only once the log is synced.
  return {
    query: <T>(sql: string, params: readonly SqlValue[] = []) =>
      prepare(database, sql).statement.readonly ? query<T>(sql, params) : query<T>(sql, params).then((rows) => walSync.afterCommit().then(() => rows)),
    execute: async (sql: string, params: readonly SqlValue[] = []) => {
      const changed = await execute(sql, params);
      if (changed > 0) await walSync.afterCommit();
      return changed;
    },
  };
}

function sqliteTransaction<T>(connection: SqliteConnection, fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  return runInGroup(handlesOf(connection).group, (q) => runScoped(q, fn));
}

/** Each batch's form for group commit: its statements run in the group's transaction scope, as a job's do. */
const groupBatches = new WeakMap<CommitBatch<never, unknown>, GroupBatch<SqlExecutor, never, unknown>>();

function groupBatchOf<I, R>(batch: CommitBatch<I, R>): GroupBatch<SqlExecutor, I, R> {
  const key = batch as unknown as CommitBatch<never, unknown>;
  let made = groupBatches.get(key);
  if (!made) {
    made = { run: (q, items) => runScoped(q, () => batch.run(items as readonly I[])) };
    groupBatches.set(key, made);
  }
  return made as unknown as GroupBatch<SqlExecutor, I, R>;
}

// ---------------------------------------------------------------- PostgreSQL

function postgresExecutor(target: Pool | PoolClient): SqlExecutor {
  return {
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
    const result = await runScoped(postgresExecutor(client), fn);
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

// ---------------------------------------------------------------- the transaction scope

/** The transaction a store call runs in; `open` turns false when it has ended (a call that outlives it goes top-level). */
interface TransactionFrame {
  executor: SqlExecutor;
  open: boolean;
}

const scope = new AsyncLocalStorage<TransactionFrame>();

async function runScoped<T>(executor: SqlExecutor, fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  const frame: TransactionFrame = { executor, open: true };
  try {
    return await scope.run(frame, () => fn(executor));
  } finally {
    frame.open = false;
  }
}

function openFrame(): TransactionFrame | undefined {
  const frame = scope.getStore();
  return frame?.open ? frame : undefined;
}

/** Whether the caller runs inside a store transaction. */
export function inTransaction(): boolean {
  return openFrame() !== undefined;
}

/** Throws TransactionScopeError when called inside a store transaction (for calls that would wait on its connection). */
export function assertOutsideTransaction(what: string): void {
  if (inTransaction()) throw new TransactionScopeError(what);
}

// ---------------------------------------------------------------- the executor of this process's database

/** One top-level executor per shared connection, not one per statement (every Bearer request runs one). */
const topLevelExecutors = new WeakMap<SharedConnection, SqlExecutor>();

function topLevel(): SqlExecutor {
  const connection = sharedConnection();
  let executor = topLevelExecutors.get(connection);
  if (!executor) {
    executor = connection.provider === "sqlite" ? topLevelSqlite(connection) : postgresExecutor(connection.pool);
    topLevelExecutors.set(connection, executor);
  }
  return executor;
}

/** The executor for a store call: the transaction's it runs in, or the top-level one. */
export function db(): SqlExecutor {
  const executor = openFrame()?.executor ?? topLevel();
  return tracingOn() ? tracedExecutor(executor) : executor;
}

// ---------------------------------------------------------------- traces (lib/tracing; only when traces are on)

/** A statement's operation and table ("SELECT", "AccessToken"): never its values, which are bound parameters. */
function statementOf(sql: string): { operation: string; table: string | undefined } {
  const text = sql.trimStart();
  const space = text.search(/\s/);
  const operation = (space < 0 ? text : text.slice(0, space)).toUpperCase();
  const table = /\b(?:FROM|INTO|UPDATE)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i.exec(text)?.[1];
  return { operation, table };
}

function databaseSystem(): string {
  return sqlProvider() === "sqlite" ? "sqlite" : "postgresql";
}

/** Each statement as a child span of the span in scope (a request's, a transaction's). */
function tracedExecutor(executor: SqlExecutor): SqlExecutor {
  const traced = <R>(sql: string, run: () => Promise<R>): Promise<R> => {
    const { operation, table } = statementOf(sql);
    const attributes = { "db.system.name": databaseSystem(), "db.operation.name": operation, ...(table ? { "db.collection.name": table } : {}) };
    return traceChild(table ? `${operation} ${table}` : operation, attributes, run);
  };
  return {
    query: <T>(sql: string, params?: readonly SqlValue[]) => traced(sql, () => executor.query<T>(sql, params)),
    execute: (sql: string, params?: readonly SqlValue[]) => traced(sql, () => executor.execute(sql, params)),
  };
}

/** Rows of one statement, in the caller's transaction if there is one. */
export async function query<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
  // db() may throw (no database configured or reachable): a rejection.
  return db().query<T>(sql, params);
}

/** One write, in the caller's transaction if there is one; the number of rows it changed. */
export async function execute(sql: string, params: readonly SqlValue[] = []): Promise<number> {
  return db().execute(sql, params);
}

/**
 * Runs `fn` in one transaction: every store call inside it (through db(), query, execute or the `q` handed
 * to fn) joins it, and a transaction started inside it joins it too. Commits when `fn` resolves (on SQLite
 * together with the other transactions started in this event-loop iteration: ./group-commit.ts; the promise
 * settles after the COMMIT), rolls back its own statements when it throws.
 */
export async function transaction<T>(fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  const outer = openFrame();
  if (outer) return fn(outer.executor);
  // Traces on: one span for the transaction, its statements its children, whoever's turn runs them (group commit).
  if (tracingOn()) return traceChild("transaction", { "db.system.name": databaseSystem() }, () => topLevelTransaction(bindToActiveTrace(fn)));
  return topLevelTransaction(fn);
}

function topLevelTransaction<T>(fn: (q: SqlExecutor) => Promise<T>): Promise<T> {
  // Opening the connection may fail (an unreachable database): a rejection, as for any statement.
  const connection = sharedConnection();
  return connection.provider === "sqlite" ? sqliteTransaction(connection, fn) : postgresTransaction(connection.pool, fn);
}

/**
 * Writes that many requests make alike, written together: `run` gets the items of several callers and returns one
 * result per item, in order; its statements (through db(), query or execute) run in one transaction.
 */
export interface CommitBatch<I, R> {
  run(items: readonly I[]): Promise<readonly R[]>;
}

/**
 * Hands `item` to `batch`; resolves with its result once the batch's writes are committed. On SQLite the items of
 * one event-loop iteration run as one call of the batch in that iteration's group commit (./group-commit.ts),
 * after its transactions; on PostgreSQL (no group commit) each item runs alone in a transaction of its own; inside
 * a store transaction, alone in that transaction. A batch that throws rejects its callers and writes nothing.
 */
export async function inCommitBatch<I, R>(batch: CommitBatch<I, R>, item: I): Promise<R> {
  const runAlone = async (): Promise<R> => {
    const results = await batch.run([item]);
    if (results.length !== 1) throw new Error(`a batch returned ${results.length} results for 1 item`);
    return results[0] as R;
  };
  const outer = openFrame();
  if (outer) return runAlone();
  const connection = sharedConnection();
  return connection.provider === "sqlite" ? joinBatch(handlesOf(connection).group, groupBatchOf(batch), item) : postgresTransaction(connection.pool, runAlone);
}

/**
 * Takes the app's SQLite connection once no statement or transaction runs on it (statements and
 * transactions wait meanwhile, without blocking the event loop); resolves with its release. For the
 * checkpointer's WAL restart (../sqlite-checkpointer.ts). null on PostgreSQL.
 */
export async function holdSqliteConnection(): Promise<GateRelease | null> {
  assertOutsideTransaction("Holding the SQLite connection");
  const connection = sharedConnection();
  if (connection.provider !== "sqlite") return null;
  return connection.gate.acquire("checkpoint");
}

/** The provider of this process's database (for the rare statement that must differ). */
export function sqlProvider(): SharedConnection["provider"] {
  return sharedConnection().provider;
}
