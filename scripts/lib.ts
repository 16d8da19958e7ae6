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

/**
 * The variables of a systemd EnvironmentFile (deploy/agent-gate.service reads /etc/agent-gate/env), as systemd reads
 * them (systemd.exec(5)): `NAME=value` lines, `#` and `;` comments; an unquoted value is taken as written (its quotes
 * too, so `SIGNING_KEYS=[{"kty":…}]` is the JSON), `\x` keeps x, and a trailing `\` continues the line; a value in
 * single quotes is verbatim, one in double quotes keeps `\"`, `\\`, `` \` `` and `\$` as the character.
 */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  let rest = text.replace(/\r\n?/g, "\n");
  while (rest.length > 0) {
    const newline = rest.indexOf("\n");
    const line = newline === -1 ? rest : rest.slice(0, newline);
    const next = newline === -1 ? "" : rest.slice(newline + 1);
    const trimmed = line.trim();
    const equals = line.indexOf("=");
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";") || equals === -1) {
      rest = next;
      continue;
    }
    const name = line.slice(0, equals).trim();
    let value = rest.slice(equals + 1).replace(/^[ \t]+/, "");
    const quote = value[0];
    if (quote === "'" || quote === '"') {
      let out = "";
      let i = 1;
      for (; i < value.length && value[i] !== quote; i++) {
        const c = value[i]!;
        if (quote === '"' && c === "\\" && i + 1 < value.length) {
          const escaped = value[i + 1]!;
          if (escaped === "\n") i++;
          else if ('"\\`$'.includes(escaped)) out += value[++i];
          else out += c;
        } else out += c;
      }
      variables[name] = out;
      const after = value.slice(i + 1);
      const end = after.indexOf("\n");
      rest = end === -1 ? "" : after.slice(end + 1);
      continue;
    }
    let out = "";
    let i = 0;
    for (; i < value.length && value[i] !== "\n"; i++) {
      if (value[i] === "\\" && i + 1 < value.length) {
        if (value[i + 1] !== "\n") out += value[i + 1];
        i++;
      } else out += value[i];
    }
    variables[name] = out.replace(/[ \t]+$/, "");
    value = value.slice(i + 1);
    rest = value;
  }
  return variables;
}
