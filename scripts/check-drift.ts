// npm run db:check-drift: fails when the derived PostgreSQL schema or either migration history
// differs from prisma/schema.prisma. Needs a PostgreSQL server (TEST_POSTGRES_URL) for the second check.
import fs from "node:fs";
import { derivedPostgresSchema, diffMigrationsToSchema, POSTGRES_SCHEMA, PROVIDERS } from "./prisma-tools";

let failed = false;
if (fs.readFileSync(POSTGRES_SCHEMA, "utf8") !== derivedPostgresSchema()) {
  console.error("drift: prisma/postgres/schema.prisma is not derived from prisma/schema.prisma (npm run db:derive)");
  failed = true;
}
for (const provider of PROVIDERS) {
  const { code, output } = diffMigrationsToSchema(provider, false);
  if (code === 0) console.log(`${provider.name}: migrations match the schema.`);
  else {
    console.error(`drift: ${provider.name} migrations differ from the schema (exit ${code}):\n${output.trim().split("\n").slice(-15).join("\n")}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
