// Row ids for the tables that grow with traffic (access tokens, audit events). UUIDv7 (RFC 9562) starts
// with the time, so a new row's primary-key entry lands on the index's last page, which the rows committed
// together share, instead of a random page each: one page write fewer per row (bench/README.md).
import { v7 } from "uuid";

/** A time-ordered UUID (version 7), monotonic within the process. */
export function timeOrderedId(): string {
  return v7();
}
