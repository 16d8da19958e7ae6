// The SQL statements a piece of work runs, as the driver receives them (SQLite `?`, PostgreSQL `$n`), on either
// provider: seen on node:sqlite's StatementSync methods (the app's statement cache keeps prepared statements, so
// what runs is seen there, not on prepare) and on pg's Client#query.
import { StatementSync } from "node:sqlite";
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

/** Notes the source of every node:sqlite statement run in `statements`; returns what undoes it. */
function traceSqlite(statements: string[]): () => void {
  const prototype = StatementSync.prototype as unknown as StatementPrototype;
  const originals = { run: prototype.run, get: prototype.get, all: prototype.all, iterate: prototype.iterate };
  for (const method of ["run", "get", "all", "iterate"] as const) {
    const original = originals[method];
    prototype[method] = function (this: StatementSync, ...args: unknown[]) {
      statements.push(this.sourceSQL);
      return Reflect.apply(original, this, args);
    };
  }
  return () => {
    Object.assign(prototype, originals);
  };
}
