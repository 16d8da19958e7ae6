// The data layer's one entry for the app: stores read and write through `db()` (or `query`/`execute`), and a
// state change is one `transaction(fn)` that every store call inside it joins (./sql/index.ts); writes that many
// requests make alike can be handed to one `inCommitBatch` and written together. The
// connection is opened from DATABASE_URL on first use (./connection.ts). Prisma is not used by the app: it
// keeps the schema and migrations (prisma/), and a guarded client for tests and scripts (./prisma.ts).
export {
  assertOutsideTransaction,
  db,
  execute,
  holdSqliteConnection,
  inCommitBatch,
  inTransaction,
  query,
  readBoolean,
  readDate,
  readOptionalDate,
  sqlProvider,
  transaction,
  TransactionScopeError,
  type CommitBatch,
  type SqlExecutor,
  type SqlValue,
} from "./sql";
export { closeConnection } from "./connection";
export { isDatabaseUnavailable, isUniqueViolation } from "./errors";
