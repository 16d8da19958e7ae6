// Helpers shared by the project's scripts (migrate, seed, demo, tests).
import { spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "..");

/**
 * The URL `npm run db:migrate` applies migrations to. A pooler in transaction mode (what DATABASE_URL should
 * name on Vercel) breaks the session-level locks and prepared statements of `prisma migrate deploy`, so the
 * platform's direct URL wins when it is set: DATABASE_URL_UNPOOLED (Neon, Vercel's Neon integration), then
 * POSTGRES_URL_NON_POOLING (Vercel Postgres, Supabase's integration); else DATABASE_URL, else the embedded file.
 */
export function migrationDatabaseUrl(env: Readonly<Record<string, string | undefined>>, fallback: string): string {
  return env.DATABASE_URL_UNPOOLED || env.POSTGRES_URL_NON_POOLING || env.DATABASE_URL || fallback;
}

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
