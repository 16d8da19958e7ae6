// Row ids made from the row's creation time (lib/ids): the janitor removes old tokens and audit events by a range
// of the primary key, so an id must sort below firstTimeOrderedIdAt(t) exactly when it was made before t — in
// byte order (SQLite) as in PostgreSQL's text order (the same layout of lowercase hex and dashes).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstTimeOrderedIdAt, timeOrderedId } from "@/lib/ids";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// Any millisecond from 1970 to the year 10889 (48 bits).
const instant = fc.integer({ min: 0, max: 2 ** 48 - 1 }).map((ms) => new Date(ms));

describe("time-ordered ids", () => {
  it("are version-7 UUIDs carrying the creation time they were made from", () => {
    const at = new Date(Date.UTC(2026, 2, 1, 12, 0, 0, 123));
    const id = timeOrderedId(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at.getTime());
    expect(timeOrderedId()).toMatch(UUID_V7);
  });

  it("sort below the first id of a later millisecond and never below that of their own", () => {
    fc.assert(
      fc.property(instant, instant, (created, cutoff) => {
        const id = timeOrderedId(created);
        const bound = firstTimeOrderedIdAt(cutoff);
        expect(id < bound).toBe(created.getTime() < cutoff.getTime());
        expect(Buffer.compare(Buffer.from(id), Buffer.from(bound)) < 0).toBe(created.getTime() < cutoff.getTime());
      }),
      { numRuns: 2000 },
    );
  });
});
