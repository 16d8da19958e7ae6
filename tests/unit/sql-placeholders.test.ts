// lib/db/sql writes SQL once with PostgreSQL's $n placeholders; SQLite gets `?` and the arguments in order.
// Also: the errors of the raw pg path count as "database unavailable" (routes answer 503).
import { describe, expect, it } from "vitest";
import { toPositional } from "@/lib/db/sql/placeholders";
import { isDatabaseUnavailable } from "@/lib/db/errors";

describe("toPositional", () => {
  it("numbers arguments in the order the placeholders appear", () => {
    expect(toPositional(`SELECT * FROM "T" WHERE "a" = $1 AND "b" = $2`)).toEqual({ sql: `SELECT * FROM "T" WHERE "a" = ? AND "b" = ?`, argumentOrder: [0, 1] });
  });

  it("maps repeated and out-of-order placeholders to the argument they name", () => {
    expect(toPositional(`UPDATE "T" SET "x" = $3 WHERE "id" = $1 OR "id" = $3 OR "y" = $2`)).toEqual({
      sql: `UPDATE "T" SET "x" = ? WHERE "id" = ? OR "id" = ? OR "y" = ?`,
      argumentOrder: [2, 0, 2, 1],
    });
  });

  it("reads multi-digit placeholders whole", () => {
    const sql = Array.from({ length: 12 }, (_, i) => `$${12 - i}`).join(", ");
    expect(toPositional(sql).argumentOrder).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it("leaves quoted identifiers, string literals (with escaped quotes) and comments alone", () => {
    const sql = `SELECT "col$1", 'it''s $2', $1 -- $3 here\n/* $4 */ FROM "A""$5"`;
    expect(toPositional(sql)).toEqual({ sql: `SELECT "col$1", 'it''s $2', ? -- $3 here\n/* $4 */ FROM "A""$5"`, argumentOrder: [0] });
  });

  it("keeps a $ that is not a placeholder and rejects $0", () => {
    expect(toPositional(`SELECT $a, $`)).toEqual({ sql: `SELECT $a, $`, argumentOrder: [] });
    expect(() => toPositional(`SELECT $0`)).toThrow();
  });
});

describe("isDatabaseUnavailable", () => {
  it("recognizes pg's AggregateError when every address refuses the connection", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" });
    expect(isDatabaseUnavailable(new AggregateError([refused], ""))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([new Error("syntax error")], ""))).toBe(false);
  });
});
