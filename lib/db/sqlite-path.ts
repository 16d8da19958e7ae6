// Where a `file:` DATABASE_URL points; shared by the app's connection, the checkpointer and the Prisma CLI config.
import path from "node:path";

export const DEFAULT_SQLITE_URL = "file:./data/app.db";

/** Resolves a `file:` URL to an absolute path relative to the project root (where the CLI and the app run). */
export function sqliteFilePath(url: string): string {
  const raw = (url || DEFAULT_SQLITE_URL).replace(/^file:/, "");
  return path.isAbsolute(raw) ? raw : path.resolve(/* turbopackIgnore: true */ process.cwd(), raw);
}
