// Row ids for the tables that grow with traffic (access tokens, audit events, webhook events). UUIDv7 (RFC 9562)
// starts with the time, so a new row's primary-key entry lands on the index's last page, which the rows committed
// together share, instead of a random page each: one page write fewer per row (bench/README.md). An id made from
// the row's creation time also dates the row: the janitor finds old rows by a range of the primary key, with no
// index of their own to pay for on every insert.
import { v7 } from "uuid";

/**
 * A time-ordered UUID (version 7). Given `createdAt` (the row's creation time, from the caller's clock), its first
 * 48 bits are that millisecond; without it, the time now, monotonic within the process.
 */
export function timeOrderedId(createdAt?: Date): string {
  return createdAt === undefined ? v7() : v7({ msecs: createdAt.getTime() });
}

/**
 * The smallest version-7 id of `at`'s millisecond: the id of every row created before `at` sorts below it, as bytes
 * (SQLite) and in any PostgreSQL collation (dashes at the same places, hex digits in ASCII order; tested with ICU's).
 */
export function firstTimeOrderedIdAt(at: Date): string {
  const hex = Math.max(0, Math.floor(at.getTime())).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
