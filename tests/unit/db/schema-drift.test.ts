// The migration histories must match the one schema: this runs the same check as `npm run db:check-drift`
// for the provider under test, and proves the check notices a schema change.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { derivedPostgresSchema, diffMigrationsToSchema, POSTGRES_SCHEMA, PROVIDERS } from "../../../scripts/prisma-tools";

const provider = PROVIDERS.find((p) => p.name === (process.env.TEST_DATABASE === "postgres" ? "postgresql" : "sqlite"))!;

describe(`schema drift (${provider.name})`, () => {
  it("the PostgreSQL schema is derived from the SQLite one", () => {
    expect(fs.readFileSync(POSTGRES_SCHEMA, "utf8")).toBe(derivedPostgresSchema());
  });

  it("the migration history matches the schema", () => {
    const { code, output } = diffMigrationsToSchema(provider, false);
    expect(output).toContain("No difference detected");
    expect(code).toBe(0);
  }, 120_000);

  it("notices a model the migrations do not create", () => {
    const changed = path.join(path.dirname(provider.schema), `drift-probe-${process.pid}.prisma`);
    const abs = path.resolve(__dirname, "../../..", changed);
    fs.writeFileSync(abs, `${fs.readFileSync(path.resolve(__dirname, "../../..", provider.schema), "utf8")}\nmodel DriftProbe {\n  id String @id\n}\n`);
    try {
      const { code } = diffMigrationsToSchema({ ...provider, schema: changed }, false);
      expect(code).toBe(2);
    } finally {
      fs.rmSync(abs, { force: true });
    }
  }, 120_000);
});
