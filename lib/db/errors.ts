// Recognizes "the database cannot be reached" among whatever the drivers (node:sqlite, better-sqlite3 under Prisma,
// pg) or Prisma throw.
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

/** node:sqlite's errors carry SQLite's extended result code (errcode); its low byte is the primary code. */
const SQLITE_BUSY = 5;
const SQLITE_CANTOPEN = 14;
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

function fields(error: unknown): { code?: unknown; errcode?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown } {
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>) : {};
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || error === undefined) return false;
  const e = fields(error);
  if (typeof e.code === "string" && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.errcode === "number" && [SQLITE_BUSY, SQLITE_CANTOPEN].includes(e.errcode & 0xff)) return true;
  if (e.name === "PrismaClientInitializationError") return true;
  if (typeof e.message === "string" && UNAVAILABLE_TEXT.test(e.message)) return true;
  // pg (used directly by lib/db/sql) rejects with Node's AggregateError when every address of a host refuses.
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** SQLite's and PostgreSQL's unique-constraint violations (a concurrent insert of the same key won). */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errcode } = fields(error);
  if (errcode === SQLITE_CONSTRAINT_UNIQUE || errcode === SQLITE_CONSTRAINT_PRIMARYKEY) return true;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}
