// Issue #17 item 5: DATABASE_POOL_MAX bounds the pool, and PostgreSQL cancels a statement that runs past
// DATABASE_STATEMENT_TIMEOUT_MS (the pool sets statement_timeout on every connection).
import { Client } from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { getConfig } from "@/lib/config";
import { openPostgresPool } from "@/lib/db/connection";
import { sqlProvider } from "@/lib/db";
import { useTestConfig } from "../../support/config";

/** A PostgreSQL server to try the timeout on: the test database in the PostgreSQL pass, else TEST_POSTGRES_URL. */
function postgresUrl(): string | undefined {
  return sqlProvider() === "postgres" ? getConfig().databaseUrl : process.env.TEST_POSTGRES_URL;
}

afterEach(() => {
  useTestConfig();
});

describe("PostgreSQL pool settings", () => {
  it("takes DATABASE_POOL_MAX and DATABASE_STATEMENT_TIMEOUT_MS, 10 and 10 s by default", async () => {
    const defaults = openPostgresPool("postgresql://127.0.0.1:1/none");
    expect(defaults.options.max).toBe(10);
    expect((defaults.options as { statement_timeout?: number }).statement_timeout).toBe(10_000);
    await defaults.end();
    useTestConfig({ DATABASE_POOL_MAX: "3", DATABASE_STATEMENT_TIMEOUT_MS: "250" });
    const small = openPostgresPool("postgresql://127.0.0.1:1/none");
    expect(small.options.max).toBe(3);
    expect((small.options as { statement_timeout?: number }).statement_timeout).toBe(250);
    await small.end();
  });

  it("refuses a malformed setting by name", () => {
    expect(() => useTestConfig({ DATABASE_POOL_MAX: "many" })).toThrow(/DATABASE_POOL_MAX/);
  });

  it("has a long statement cancelled by the server, and never opens more than the max connections", async () => {
    useTestConfig({ DATABASE_POOL_MAX: "2", DATABASE_STATEMENT_TIMEOUT_MS: "300" });
    const url = postgresUrl();
    if (!url) {
      // The SQLite pass without a PostgreSQL server: the setting reaches what every connection sends at start.
      const offline = openPostgresPool("postgresql://127.0.0.1:1/none");
      const client = new Client(offline.options);
      expect((client as unknown as { connectionParameters: { statement_timeout: number } }).connectionParameters.statement_timeout).toBe(300);
      await offline.end();
      return;
    }
    const pool = openPostgresPool(url);
    try {
      const started = Date.now();
      await expect(pool.query("SELECT pg_sleep(5)")).rejects.toMatchObject({ code: "57014" });
      expect(Date.now() - started).toBeLessThan(3000);
      // Four at once on a pool of two: two wait for a free connection, never a third connection.
      await Promise.all([1, 2, 3, 4].map(() => pool.query("SELECT pg_sleep(0.05)")));
      expect(pool.totalCount).toBeLessThanOrEqual(2);
      const settings = await pool.query<{ statement_timeout: string }>("SHOW statement_timeout");
      expect(settings.rows[0]?.statement_timeout).toBe("300ms");
    } finally {
      await pool.end();
    }
  });
});
