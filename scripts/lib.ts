// Helpers shared by the project's scripts (migrate, seed, demo, tests).
import { spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "..");

export function prismaConfigFor(databaseUrl: string): string {
  return databaseUrl.startsWith("file:") ? "prisma.config.ts" : "prisma.postgres.config.ts";
}

/** Applies the checked-in migrations of the database's provider (prisma migrate deploy). */
export function migrate(databaseUrl: string, quiet = false): void {
  const result = spawnSync("npx", ["prisma", "migrate", "deploy", "--config", prismaConfigFor(databaseUrl)], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    throw new Error(`prisma migrate deploy failed for ${databaseUrl.startsWith("file:") ? "SQLite" : "PostgreSQL"}`);
  }
  if (!quiet) process.stdout.write("Database migrations applied.\n");
}
