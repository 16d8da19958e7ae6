// Is the database migrated? Compares the migrations Prisma recorded in `_prisma_migrations` with the folders
// checked in for the database's provider. Plain better-sqlite3 / pg connections, opened and closed here:
// this runs before the app opens its own connection (and before the SQLite checkpoint worker starts), and a
// Prisma client would fail on the first missing table instead of telling which migrations are missing.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { Client } from "pg";
import { childProcessEnvironment } from "@/lib/config";

/** The SQLite file of a `file:` URL; a relative path is relative to the project directory (the app's working directory). */
export function sqliteFileIn(databaseUrl: string, projectDir: string): string {
  return path.resolve(/* turbopackIgnore: true */ projectDir, databaseUrl.replace(/^file:/, ""));
}

export type MigrationState =
  | { kind: "current" }
  /** `pending`: checked-in migrations not applied; `failed`: started and never finished (needs a look first). */
  | { kind: "behind"; pending: string[]; failed: string[] }
  /** No database file (SQLite) or no `_prisma_migrations` table. */
  | { kind: "empty" }
  /** The database could not be asked (unreachable, refused the login…): the app answers 503 until it can. */
  | { kind: "unknown"; reason: string };

/** Folders of the provider's checked-in migrations, in order (prisma/migrations or prisma/postgres/migrations). */
export function checkedInMigrations(databaseUrl: string, projectDir: string = process.cwd()): string[] {
  const folder = databaseUrl.startsWith("file:") ? path.join(projectDir, "prisma", "migrations") : path.join(projectDir, "prisma", "postgres", "migrations");
  return fs
    .readdirSync(/* turbopackIgnore: true */ folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(/* turbopackIgnore: true */ path.join(folder, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort();
}

interface MigrationRow {
  migration_name: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** The recorded migrations, or null when the database has none (no file, no table). */
async function recordedMigrations(databaseUrl: string, projectDir: string): Promise<MigrationRow[] | null> {
  const select = "SELECT migration_name, finished_at, rolled_back_at FROM ";
  if (databaseUrl.startsWith("file:")) {
    const file = sqliteFileIn(databaseUrl, projectDir);
    if (!fs.existsSync(/* turbopackIgnore: true */ file)) return null;
    const db = new Database(file, { fileMustExist: true });
    try {
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
      return table ? (db.prepare(`${select}"_prisma_migrations"`).all() as MigrationRow[]) : null;
    } finally {
      db.close();
    }
  }
  // Prisma's `?schema=` selects the schema; pg itself ignores it.
  const schema = new URL(databaseUrl).searchParams.get("schema") ?? "public";
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => undefined); // a dropped idle connection must not become an uncaught 'error' event
  await client.connect();
  try {
    const table = await client.query("SELECT to_regclass($1) AS name", [`"${schema.replace(/"/g, '""')}"."_prisma_migrations"`]);
    if ((table.rows[0] as { name: string | null } | undefined)?.name == null) return null;
    const rows = await client.query(`${select}"${schema.replace(/"/g, '""')}"."_prisma_migrations"`);
    return rows.rows as MigrationRow[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Where the database stands against the checked-in migrations (never throws). */
export async function migrationState(databaseUrl: string, projectDir: string = process.cwd()): Promise<MigrationState> {
  let checkedIn: string[] | null;
  try {
    checkedIn = checkedInMigrations(databaseUrl, projectDir);
  } catch {
    checkedIn = null; // a deployment without the migration folders (next.config.ts traces them)
  }
  let rows: MigrationRow[] | null;
  try {
    rows = await recordedMigrations(databaseUrl, projectDir);
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
    return { kind: "unknown", reason: code || (error instanceof Error ? error.name : "error") };
  }
  if (rows === null) return { kind: "empty" };
  if (checkedIn === null) return { kind: "unknown", reason: "the checked-in migrations are not deployed with the app" };
  const applied = new Set(rows.filter((r) => r.finished_at != null && r.rolled_back_at == null).map((r) => r.migration_name));
  const failed = rows.filter((r) => r.finished_at == null && r.rolled_back_at == null).map((r) => r.migration_name);
  const pending = checkedIn.filter((name) => !applied.has(name));
  return pending.length === 0 && failed.length === 0 ? { kind: "current" } : { kind: "behind", pending, failed };
}

/**
 * Applies the checked-in migrations with the project's Prisma CLI (`prisma migrate deploy`, what
 * `npm run db:migrate` runs); rejects with the CLI's last output line when it fails.
 */
export async function applyMigrations(databaseUrl: string, projectDir: string = process.cwd()): Promise<void> {
  const cli = path.join(projectDir, "node_modules", "prisma", "build", "index.js");
  if (!fs.existsSync(/* turbopackIgnore: true */ cli)) throw new Error("the Prisma CLI is not installed (node_modules/prisma)");
  const sqlite = databaseUrl.startsWith("file:");
  if (sqlite) fs.mkdirSync(/* turbopackIgnore: true */ path.dirname(sqliteFileIn(databaseUrl, projectDir)), { recursive: true });
  // An absolute file: URL, so the CLI finds the same file whatever it resolves paths against.
  const url = sqlite ? `file:${sqliteFileIn(databaseUrl, projectDir)}` : databaseUrl;
  const config = sqlite ? "prisma.config.ts" : "prisma.postgres.config.ts";
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "migrate", "deploy", "--config", config], {
      cwd: projectDir,
      env: childProcessEnvironment({ DATABASE_URL: url, PRISMA_HIDE_UPDATE_MESSAGE: "1" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve();
      const last = output.trim().split("\n").filter(Boolean).pop() ?? `exit code ${code}`;
      reject(new Error(`prisma migrate deploy failed: ${last.slice(0, 300)}`));
    });
  });
}
