// get_community_stats: the member count, recomputed at most every 20 minutes and cached in the
// database (CachedStat; this module is its store) so every instance shares one value (CONTRACT.md §9).
import { z } from "zod";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { db, readDate } from "@/lib/db";
import { countMembers } from "@/lib/members/store";
import { isoTimestamp } from "@/lib/schemas/service-auth";
import { defineTool } from "./types";

export const STATS_CACHE_SECONDS = 1200;
const MEMBER_COUNT_STAT = "member_count";

export const communityStatsInput = z.strictObject({});

export const communityStatsOutput = z.object({
  member_count: z.number().int().min(0),
  as_of: isoTimestamp.describe("When the count was computed (ISO 8601 UTC)."),
  cache_max_age_seconds: z.literal(STATS_CACHE_SECONDS),
});
export type CommunityStatsOutput = z.infer<typeof communityStatsOutput>;

interface MemberCountStat {
  value: number;
  computedAt: Date;
}

/**
 * The last value this process read or wrote. While it is fresh no instance recomputes (the row is at least as new),
 * so answering from it serves the value the database holds without asking for it on every call.
 */
let lastSeen: MemberCountStat | undefined;

function isFresh(stat: MemberCountStat, now: Date): boolean {
  const age = now.getTime() - stat.computedAt.getTime();
  return age >= 0 && age < STATS_CACHE_SECONDS * 1000;
}

function answer(stat: MemberCountStat): CommunityStatsOutput {
  return { member_count: stat.value, as_of: stat.computedAt.toISOString(), cache_max_age_seconds: STATS_CACHE_SECONDS };
}

export async function getCommunityStats(clock: Clock = systemClock): Promise<CommunityStatsOutput> {
  const now = clock.now();
  if (lastSeen && isFresh(lastSeen, now)) return answer(lastSeen);
  const rows = await db().query<{ value: number; computedAt: unknown }>(`SELECT "value", "computedAt" FROM "CachedStat" WHERE "name" = $1`, [MEMBER_COUNT_STAT]);
  const cached = rows[0] ? { value: Number(rows[0].value), computedAt: readDate(rows[0].computedAt) } : undefined;
  if (cached && isFresh(cached, now)) {
    lastSeen = cached;
    return answer(cached);
  }
  // Two instances may recompute at the same moment; both write the same kind of value, so last write wins harmlessly.
  const count = await countMembers();
  await db().execute(
    `INSERT INTO "CachedStat" ("name", "value", "computedAt") VALUES ($1, $2, $3)
     ON CONFLICT ("name") DO UPDATE SET "value" = $2, "computedAt" = $3`,
    [MEMBER_COUNT_STAT, count, now],
  );
  lastSeen = { value: count, computedAt: now };
  return answer(lastSeen);
}

export const communityStatsTool = defineTool({
  name: "get_community_stats",
  title: "Community statistics",
  description: [
    'Returns the community\'s current number of members as {"member_count", "as_of", "cache_max_age_seconds": 1200}.',
    "The count is roughly live: it is recomputed at most every 20 minutes, and as_of says when it was computed.",
    "It never lists, names or describes members. Takes no arguments: pass {}. Read-only.",
  ].join(" "),
  inputSchema: communityStatsInput,
  outputSchema: communityStatsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  tags: ["community", "statistics", "read-only"],
  examples: [{ prompt: "How many members does the community have?", input: {} }],
  handler: (_input, context) => getCommunityStats(context.clock),
});
