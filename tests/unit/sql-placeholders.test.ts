// lib/db/sql writes SQL once with PostgreSQL's $n placeholders; SQLite gets `+?` and the arguments in order.
// Also: the errors of the raw pg path count as "database unavailable" (routes answer 503).
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { toPositional } from "@/lib/db/sql/placeholders";
import { isDatabaseUnavailable } from "@/lib/db/errors";

describe("toPositional", () => {
  it("numbers arguments in the order the placeholders appear", () => {
    expect(toPositional(`SELECT * FROM "T" WHERE "a" = $1 AND "b" = $2`)).toEqual({ sql: `SELECT * FROM "T" WHERE "a" = +? AND "b" = +?`, argumentOrder: [0, 1] });
  });

  it("maps repeated and out-of-order placeholders to the argument they name", () => {
    expect(toPositional(`UPDATE "T" SET "x" = $3 WHERE "id" = $1 OR "id" = $3 OR "y" = $2`)).toEqual({
      sql: `UPDATE "T" SET "x" = +? WHERE "id" = +? OR "id" = +? OR "y" = +?`,
      argumentOrder: [2, 0, 2, 1],
    });
  });

  it("reads multi-digit placeholders whole", () => {
    const sql = Array.from({ length: 12 }, (_, i) => `$${12 - i}`).join(", ");
    expect(toPositional(sql).argumentOrder).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it("leaves quoted identifiers, string literals (with escaped quotes) and comments alone", () => {
    const sql = `SELECT "col$1", 'it''s $2', $1 -- $3 here\n/* $4 */ FROM "A""$5"`;
    expect(toPositional(sql)).toEqual({ sql: `SELECT "col$1", 'it''s $2', +? -- $3 here\n/* $4 */ FROM "A""$5"`, argumentOrder: [0] });
  });

  it("keeps a $ that is not a placeholder and rejects $0", () => {
    expect(toPositional(`SELECT $a, $`)).toEqual({ sql: `SELECT $a, $`, argumentOrder: [] });
    expect(() => toPositional(`SELECT $0`)).toThrow();
  });
});

describe("SQLite's `+?`", () => {
  // The claim toPositional's comment makes: unary plus changes neither a value, nor its type, nor how a column's
  // affinity applies to it in a comparison, nor whether an index serves the term.
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE "T" ("n" INTEGER, "s" TEXT, "r" REAL, "b" BLOB); CREATE UNIQUE INDEX "T_s" ON "T" ("s");`);
  db.prepare(`INSERT INTO "T" VALUES (5, '5', 1.5, x'00ff')`).run();
  const both = (sql: string, ...values: unknown[]) => [db.prepare(sql).all(...values), db.prepare(sql.replaceAll("?", "+?")).all(...values)];

  it.each([[42], [-1], [0], [1], [2 ** 53], [1.25], ["0123"], [""], ["\u{1F600}\uD800"], [Buffer.from([0, 255])], [null], [10n ** 18n]])(
    "gives back %s with the same value and type",
    (value) => {
      const [bare, plus] = both(`SELECT ? AS "v", typeof(?) AS "t"`, value, value);
      expect(plus).toEqual(bare);
    },
  );

  it("compares under the column's affinity as a bare parameter does", () => {
    for (const [sql, value] of [
      [`SELECT "n" FROM "T" WHERE "s" = ?`, 5],
      [`SELECT "n" FROM "T" WHERE "n" = ?`, "5"],
      [`SELECT "n" FROM "T" WHERE "r" > ?`, "1"],
      [`SELECT "n" FROM "T" WHERE "b" = ?`, Buffer.from([0, 255])],
      [`SELECT "n" FROM "T" WHERE "s" = ?`, "05"],
    ] as const) {
      const [bare, plus] = both(sql, value);
      expect(plus).toEqual(bare);
    }
    expect(both(`SELECT "n" FROM "T" WHERE "n" = ?`, "5")[1]).toEqual([{ n: 5 }]);
  });

  it("leaves the index serving the term", () => {
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT a."n" FROM "T" a JOIN "T" c ON c."n" = a."n" WHERE a."s" = +?`).all("5") as { detail: string }[];
    expect(plan[0]!.detail).toMatch(/USING (COVERING )?INDEX T_s \(s=\?\)/);
  });
});

describe("isDatabaseUnavailable", () => {
  it("recognizes pg's AggregateError when every address refuses the connection", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" });
    expect(isDatabaseUnavailable(new AggregateError([refused], ""))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([new Error("syntax error")], ""))).toBe(false);
  });
});
