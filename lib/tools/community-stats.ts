// get_community_stats: the member count, recomputed at most every 20 minutes and cached in the
// database (CachedStat) so every instance shares one value (CONTRACT.md §9).
import { z } from "zod";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { getDb } from "@/lib/db";
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

export async function getCommunityStats(clock: Clock = systemClock): Promise<CommunityStatsOutput> {
  const db = getDb();
  const now = clock.now();
  const cached = await db.cachedStat.findUnique({ where: { name: MEMBER_COUNT_STAT } });
  const fresh = cached && now.getTime() - cached.computedAt.getTime() < STATS_CACHE_SECONDS * 1000 && cached.computedAt.getTime() <= now.getTime();
  if (cached && fresh) {
    return { member_count: cached.value, as_of: cached.computedAt.toISOString(), cache_max_age_seconds: STATS_CACHE_SECONDS };
  }
  // Two instances may recompute at the same moment; both write the same kind of value, so last write wins harmlessly.
  const count = await db.member.count();
  await db.cachedStat.upsert({
    where: { name: MEMBER_COUNT_STAT },
    create: { name: MEMBER_COUNT_STAT, value: count, computedAt: now },
    update: { value: count, computedAt: now },
  });
  return { member_count: count, as_of: now.toISOString(), cache_max_age_seconds: STATS_CACHE_SECONDS };
}

export const communityStatsTool = defineTool({
  name: "get_community_stats",
  title: "Community statistics",
  description: [
    "Returns the community's current number of members as {\"member_count\", \"as_of\", \"cache_max_age_seconds\": 1200}.",
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
