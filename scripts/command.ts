// The frame of every npm command that opens the database (issue #17 item 8): an unmigrated or unreachable
// database is answered with one line that says what to run or what failed, never the driver's raw error,
// and a non-zero exit code. Usage: `runCommand("member:add", async () => { ... })`.
import { closeConnection, isDatabaseUnavailable } from "@/lib/db";

/** Exit codes: 1 the command failed, 3 the database is not migrated, 4 the database cannot be reached. */
export const EXIT_FAILED = 1;
export const EXIT_NOT_MIGRATED = 3;
export const EXIT_UNREACHABLE = 4;

function fields(error: unknown): Record<string, unknown> {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
}

/** A missing table: SQLite's "no such table", PostgreSQL's 42P01 (undefined_table), Prisma's P2021. */
export function isMissingTable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || error === undefined) return false;
  const e = fields(error);
  if (e.code === "42P01" || e.code === "P2021") return true;
  if (typeof e.message === "string" && /no such table/i.test(e.message)) return true;
  return isMissingTable(e.cause, depth + 1);
}

/** Removes what may carry credentials (user:password@ in URLs, password=…) from a driver's message. */
export function withoutCredentials(text: string): string {
  return text.replace(/\/\/[^\s/@]*@/g, "//").replace(/(password|passwd|pwd)\s*[=:]\s*\S+/gi, "$1=…");
}

/** What failed when the database cannot be reached, in a few words (host and port, never credentials). */
export function describeUnreachable(error: unknown, depth = 0): string {
  const e = fields(error);
  if (Array.isArray(e.errors) && e.errors.length > 0 && depth < 5) return describeUnreachable(e.errors[0], depth + 1);
  const code = typeof e.code === "string" ? e.code : undefined;
  const where = typeof e.address === "string" ? `${e.address}${typeof e.port === "number" ? `:${e.port}` : ""}` : undefined;
  if (code === "ECONNREFUSED") return `connection refused${where ? ` by ${where}` : ""}`;
  if (code === "ENOTFOUND") return `host not found${typeof e.hostname === "string" ? `: ${e.hostname}` : ""}`;
  if (code === "ETIMEDOUT") return `connection timed out${where ? ` to ${where}` : ""}`;
  if (code === "SQLITE_CANTOPEN") return "unable to open the SQLite database file";
  const message = typeof e.message === "string" ? e.message.split("\n")[0]!.trim() : "";
  if (message) return withoutCredentials(message).slice(0, 200);
  return code ?? "unknown failure";
}

/** The one line a command prints for a failure. */
export function commandFailure(name: string, error: unknown): { line: string; exitCode: number } {
  if (isMissingTable(error)) return { line: `${name}: the database is not migrated; run \`npm run db:migrate\``, exitCode: EXIT_NOT_MIGRATED };
  if (isDatabaseUnavailable(error)) return { line: `${name}: cannot reach the database (${describeUnreachable(error)})`, exitCode: EXIT_UNREACHABLE };
  const e = fields(error);
  const message = typeof e.message === "string" ? e.message.split("\n")[0]!.trim() : String(error);
  return { line: `${name}: failed: ${withoutCredentials(message).slice(0, 300)}`, exitCode: EXIT_FAILED };
}

/**
 * Runs a command's `main` and closes the database connection after it. `main` may return an exit code.
 * A failure prints one line on stderr and sets a non-zero exit code (never a stack or Prisma's text).
 */
export async function runCommand(name: string, main: () => Promise<number | void>): Promise<void> {
  let exitCode = 0;
  try {
    exitCode = (await main()) ?? 0;
  } catch (error) {
    const failure = commandFailure(name, error);
    console.error(failure.line);
    exitCode = failure.exitCode;
  } finally {
    await closeConnection().catch(() => undefined);
  }
  process.exitCode = exitCode;
}
