// lookup_member: one public member by exact display name or exact slug (CONTRACT.md §9). Never a search.
import { z } from "zod";
import { absoluteUrl } from "@/lib/config";
import { displayNameKey } from "@/lib/members/normalize";
import { findPublicMember } from "@/lib/members/store";
import { text } from "@/lib/schemas/text";
import { defineTool } from "./types";

export const lookupMemberInput = z.strictObject({
  name_or_slug: text()
    .min(1, "name_or_slug must not be empty.")
    .max(120, "name_or_slug has at most 120 characters.")
    .describe('The member\'s exact display name (case and surrounding spaces do not matter) or their exact profile slug, e.g. "Ada Lovelace" or "ada-lovelace".'),
});

export const publicMemberSchema = z.object({
  display_name: z.string(),
  slug: z.string(),
  member_since: z
    .string()
    .regex(/^\d{4}-\d{2}$/)
    .describe("Year and month the member joined, YYYY-MM."),
  profile_url: z.string().url(),
});

// MCP output schemas must be one object, so found/member is one object with an optional member.
export const lookupMemberOutput = z.object({
  found: z.boolean(),
  member: publicMemberSchema.optional().describe("Present only when found is true."),
});
export type LookupMemberOutput = z.infer<typeof lookupMemberOutput>;

/** Anything shaped like an e-mail address is never matched: members are not findable by e-mail. */
const looksLikeEmail = (value: string): boolean => value.includes("@");

export async function lookupMember(nameOrSlug: string): Promise<LookupMemberOutput> {
  const exact = nameOrSlug.trim().normalize("NFC");
  if (exact.length === 0 || looksLikeEmail(exact)) return { found: false };
  // One indexed query (slug is unique, displayNameKey indexed): a slug match wins; display names may repeat, so
  // the earliest member is the deterministic answer.
  const member = await findPublicMember(exact, displayNameKey(exact));
  if (!member) return { found: false };
  return {
    found: true,
    member: {
      display_name: member.displayName,
      slug: member.slug,
      member_since: member.joinedAt.toISOString().slice(0, 7),
      profile_url: absoluteUrl(`/members/${member.slug}`),
    },
  };
}

export const lookupMemberTool = defineTool({
  name: "lookup_member",
  title: "Look up one community member",
  description: [
    "Finds one community member who chose a public profile, by their exact display name or their exact profile slug.",
    "Matching ignores letter case, surrounding spaces and Unicode composition, but nothing else: no partial names, prefixes, wildcards, fuzzy matching, e-mail addresses or lists.",
    'Returns {"found": true, "member": {display_name, slug, member_since (YYYY-MM), profile_url}} or {"found": false}; members without a public profile are always reported as not found.',
    'Pass {"name_or_slug": "<exact display name or slug>"}. Read-only.',
  ].join(" "),
  inputSchema: lookupMemberInput,
  outputSchema: lookupMemberOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  tags: ["members", "lookup", "read-only"],
  examples: [
    { prompt: "Is Ada Lovelace a member of the community?", input: { name_or_slug: "Ada Lovelace" } },
    { prompt: "Look up the member with the slug grace-hopper.", input: { name_or_slug: "grace-hopper" } },
  ],
  handler: (input) => lookupMember(input.name_or_slug),
});
