// The SQL statements a piece of work runs, as the driver receives them (SQLite `+?`, PostgreSQL `$n`), on either
// provider: seen on better-sqlite3's Statement methods (its statement cache keeps prepared statements, so what
// runs is seen there, not on prepare) and on pg's Client#query.
import Database from "better-sqlite3";
import { Client } from "pg";
import { sqlProvider } from "@/lib/db";

type StatementMethod = (...args: unknown[]) => unknown;
type StatementPrototype = Record<"run" | "get" | "all" | "iterate", StatementMethod>;

export async function sqlRunDuring(work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const restore = sqlProvider() === "postgres" ? tracePostgres(statements) : traceSqlite(statements);
  try {
    await work();
  } finally {
    restore();
  }
  return statements;
}

/** Notes every pg query's text in `statements`; returns what undoes it. */
function tracePostgres(statements: string[]): () => void {
  const query = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const sql = typeof args[0] === "object" && args[0] !== null ? (args[0] as { text?: unknown }).text : args[0];
    if (typeof sql === "string") statements.push(sql);
    return Reflect.apply(query, this, args) as unknown;
  } as typeof query;
  return () => {
    Client.prototype.query = query;
  };
}

/** Notes the source of every better-sqlite3 statement run in `statements`; returns what undoes it. */
function traceSqlite(statements: string[]): () => void {
  const probe = new Database(":memory:");
  const prototype = Object.getPrototypeOf(probe.prepare("SELECT 1")) as StatementPrototype;
  probe.close();
  const originals = { run: prototype.run, get: prototype.get, all: prototype.all, iterate: prototype.iterate };
  for (const method of ["run", "get", "all", "iterate"] as const) {
    const original = originals[method];
    prototype[method] = function (this: { source: string }, ...args: unknown[]) {
      statements.push(this.source);
      return Reflect.apply(original, this, args);
    };
  }
  return () => {
    Object.assign(prototype, originals);
  };
}
