// npm run db:new-migration -- <name>: derives the PostgreSQL schema, then writes a migration for each
// provider from its history to the schema (migrate diff; no shadow-database bugs of migrate dev).
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib";
import { derivedPostgresSchema, diffMigrationsToSchema, POSTGRES_SCHEMA, PROVIDERS } from "./prisma-tools";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("Usage: npm run db:new-migration -- <name in lower_snake_case>");
  process.exit(2);
}
fs.writeFileSync(POSTGRES_SCHEMA, derivedPostgresSchema());
const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
for (const provider of PROVIDERS) {
  const { code, output } = diffMigrationsToSchema(provider, true);
  if (code !== 0) {
    console.error(`${provider.name}: migrate diff failed`);
    process.exit(1);
  }
  if (!output.trim() || /^-- This is an empty migration/.test(output.trim())) {
    console.log(`${provider.name}: no changes.`);
    continue;
  }
  const dir = path.join(ROOT, provider.migrations, `${stamp}_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "migration.sql"), output);
  console.log(`${provider.name}: wrote ${path.relative(ROOT, dir)}/migration.sql`);
}
