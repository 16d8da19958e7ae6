// Recognizes "the database cannot be reached" among whatever the drivers (better-sqlite3, pg) or Prisma throw.
const UNAVAILABLE_CODES = new Set([
  "P1001",
  "P1002",
  "P1008",
  "P1017",
  "P2024",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57P01",
  "57P03",
  "53300",
  "SQLITE_CANTOPEN",
  "SQLITE_BUSY",
]);
const UNAVAILABLE_TEXT =
  /(can't reach database|cannot reach database|connection refused|ECONNREFUSED|database is locked|unable to open database|DatabaseNotReachable|Connection terminated|timed out fetching a new connection|too many clients|the database system is (starting|shutting) up)/i;

function fields(error: unknown): { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown } {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || error === undefined) return false;
  const e = fields(error);
  if (typeof e.code === "string" && UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.name === "PrismaClientInitializationError") return true;
  if (typeof e.message === "string" && UNAVAILABLE_TEXT.test(e.message)) return true;
  // pg (used directly by lib/db/sql) rejects with Node's AggregateError when every address of a host refuses.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** SQLite's and PostgreSQL's unique-constraint violations (a concurrent insert of the same key won). */
export function isUniqueViolation(error: unknown): boolean {
  const code = fields(error).code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}
