// SQL is written once, with PostgreSQL's numbered placeholders ($1..$n); SQLite gets positional `+?` and the
// arguments in the order they appear (a repeated or out-of-order $n simply names an argument again).
//
// Why `+?` rather than a bare `?`: SQLite's planner (3.5x) marks a join's `column = ?` terms so that new values
// re-plan the statement, and better-sqlite3 clears a statement's bindings after every run, which expires such a
// statement: each call of a join would parse and plan it again (the own-account lookup took 85 µs instead of 18,
// bench/micro-db.ts). Unary plus is a no-op on any value (sqlite.org/lang_expr.html, "Operators") and keeps
// the parameter out of that heuristic, as the Query Planner Stability Guarantee would, which better-sqlite3 has no
// switch for. A parameter has no affinity either way, so comparisons and index use are unchanged.

export interface PositionalSql {
  sql: string;
  /** For each `?` in `sql`, the index (0-based) of the argument it takes. */
  argumentOrder: number[];
}

/**
 * Rewrites `$n` placeholders to `+?`, leaving quoted identifiers ("..."), string literals ('...') and
 * comments untouched. Throws on `$0` (placeholders count from 1).
 */
export function toPositional(sql: string): PositionalSql {
  let out = "";
  const argumentOrder: number[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = closingQuote(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === "-" && sql[i + 1] === "-") {
      const newline = sql.indexOf("\n", i);
      const end = newline === -1 ? sql.length : newline;
      out += sql.slice(i, end);
      i = end;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      const end = close === -1 ? sql.length : close + 2;
      out += sql.slice(i, end);
      i = end;
    } else if (ch === "$" && /[0-9]/.test(sql[i + 1] ?? "")) {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j]!)) j++;
      const n = Number(sql.slice(i + 1, j));
      if (n < 1) throw new Error(`invalid placeholder $${n}`);
      argumentOrder.push(n - 1);
      out += "+?";
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  return { sql: out, argumentOrder };
}

/** Index just after the quote that closes the one at `start` (a doubled quote is an escaped one). */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}
