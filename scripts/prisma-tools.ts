// Schema tooling shared by db:derive, db:new-migration and db:check-drift.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib";

export const SQLITE_SCHEMA = path.join(ROOT, "prisma/schema.prisma");
export const POSTGRES_SCHEMA = path.join(ROOT, "prisma/postgres/schema.prisma");

/** The PostgreSQL schema is the SQLite one with another provider and client output. */
export function derivedPostgresSchema(): string {
  const source = fs.readFileSync(SQLITE_SCHEMA, "utf8");
  const body = source
    .replace(/^\/\/ The one schema\..*\n(\/\/.*\n)*/m, "")
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('output     = "../lib/generated/sqlite"', 'output     = "../../lib/generated/postgres"');
  return `// GENERATED from prisma/schema.prisma by \`npm run db:derive\`: do not edit.\n// Only the provider and the client output differ.\n${body}`;
}

export function postgresUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? process.env.POSTGRES_URL ?? "postgresql://postgres:postgres@127.0.0.1:5432/postgres";
}

export interface Provider {
  name: "sqlite" | "postgresql";
  config: string;
  schema: string;
  migrations: string;
  url: () => string;
}

export const PROVIDERS: Provider[] = [
  { name: "sqlite", config: "prisma.config.ts", schema: "prisma/schema.prisma", migrations: "prisma/migrations", url: () => `file:${path.join(ROOT, ".tmp", "schema-tools.db")}` },
  { name: "postgresql", config: "prisma.postgres.config.ts", schema: "prisma/postgres/schema.prisma", migrations: "prisma/postgres/migrations", url: postgresUrl },
];

/** Runs `prisma migrate diff` from the migration history to the schema; returns exit code and output. */
export function diffMigrationsToSchema(provider: Provider, script: boolean): { code: number; output: string } {
  fs.mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
  const args = ["prisma", "migrate", "diff", "--config", provider.config, "--from-migrations", provider.migrations, "--to-schema-datamodel", provider.schema];
  args.push(script ? "--script" : "--exit-code");
  const result = spawnSync("npx", args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, DATABASE_URL: provider.url(), PRISMA_HIDE_UPDATE_MESSAGE: "1" } });
  return { code: result.status ?? 1, output: script ? result.stdout : `${result.stdout}\n${result.stderr}` };
}
