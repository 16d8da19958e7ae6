// Which statements read a whole table, by the database's own plan: SQLite's EXPLAIN QUERY PLAN (a "SCAN" of a
// table), PostgreSQL's EXPLAIN with sequential scans priced out (the planner then picks one only where no index
// can serve). Statements as sqlRunDuring saw them (SQLite `+?`, PostgreSQL `$n`); `value(index, count)` gives the
// placeholders' values.
import Database from "better-sqlite3";
import { Client } from "pg";
import { sqlProvider } from "@/lib/db";
import { getConfig } from "@/lib/config";

type PlanValue = string | number;

const defaultValue = (): PlanValue => "2026-01-01T00:00:00Z";

/** Each statement's plan, as one text (PostgreSQL: with sequential scans priced out). */
export async function queryPlans(statements: readonly string[], value: (index: number, count: number) => PlanValue = defaultValue): Promise<string[]> {
  const plans: string[] = [];
  if (sqlProvider() === "postgres") {
    const client = new Client({ connectionString: getConfig().databaseUrl });
    await client.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      for (const sql of statements) {
        const count = [...sql.matchAll(/\$(\d+)/g)].reduce((n, m) => Math.max(n, Number(m[1])), 0);
        const plan = await client.query<{ "QUERY PLAN": string }>(
          `EXPLAIN ${sql}`,
          Array.from({ length: count }, (_, i) => value(i, count)),
        );
        plans.push(plan.rows.map((row) => row["QUERY PLAN"]).join("\n"));
      }
      await client.query("ROLLBACK");
    } finally {
      await client.end();
    }
    return plans;
  }
  const reader = new Database(getConfig().databaseUrl.replace(/^file:/, ""), { readonly: true });
  try {
    for (const sql of statements) {
      const count = (sql.match(/\?/g) ?? []).length;
      const plan = reader.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: count }, (_, i) => value(i, count))) as { detail: string }[];
      plans.push(plan.map((step) => step.detail).join("\n"));
    }
  } finally {
    reader.close();
  }
  return plans;
}

/** The statements whose plan reads a whole table (a foreign-key cascade shows in SQLite's plan of the DELETE itself). */
export async function statementsReadingWholeTables(statements: readonly string[], value?: (index: number, count: number) => PlanValue): Promise<string[]> {
  const plans = await queryPlans(statements, value);
  const wholeTable = sqlProvider() === "postgres" ? /Seq Scan/ : /^SCAN (?!CONSTANT ROW)/m;
  return statements.filter((_, index) => wholeTable.test(plans[index]!));
}
