// The human map page's data: members who chose a public profile and gave a location. Public information,
// read like the other public surfaces: a per-caller budget (BUDGETS.mapSearch, lib/shared-state) and small pages
// behind a cursor, so taking the whole map costs minutes, never one call. The same-origin check below only
// keeps this plumbing out of agents' way (it is in no catalog); it protects nothing, since every client can send
// Sec-Fetch-Site. Not an agent or bulk API (SPEC.md 7).
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { jsonReply, queryOf, type ApiReply, type ApiRequest, type HeaderReader } from "@/lib/http/api";
import { publicCaller } from "@/lib/agent-identity";
import { callerKey } from "@/lib/http/client-ip";
import { errorReply, rateLimitedReply } from "@/lib/http/errors";
import { listMappedMembersPage } from "@/lib/members/store";
import { chargeCaller } from "@/lib/rate-limit/charge";

export const mapMemberSchema = z.object({
  slug: z.string(),
  display_name: z.string(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  latitude: z.number(),
  longitude: z.number(),
});
export type MapMember = z.infer<typeof mapMemberSchema>;
/** One page: members in slug order; `next_cursor` asks for the following page, null after the last. */
export const mapSearchResponseSchema = z.object({ members: z.array(mapMemberSchema), next_cursor: z.string().nullable() });
export type MapSearchResponse = z.infer<typeof mapSearchResponseSchema>;

/** Members per page: with the budget's 10 pages a minute, a map of 1,000 members takes two minutes to copy. */
export const MAP_PAGE_SIZE = 50;

/** A cursor is the last slug of the previous page (slugs: lowercase letters, digits and single hyphens). */
const CURSOR = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const CURSOR_MAX = 60;

/**
 * A fetch made by a page of this very site as a browser labels it (Sec-Fetch-Site: same-origin, and an Origin,
 * when sent, that is ours). Plumbing, not protection: a script sets these headers at will.
 */
export function isSameOriginPageRequest(headers: HeaderReader): boolean {
  if (headers.get("sec-fetch-site") !== "same-origin") return false;
  const origin = headers.get("origin");
  return origin === null || origin === getConfig().baseUrl;
}

/** One page of mapped members after the cursor (a slug), and the cursor of the next page. */
export async function mapMembersPage(cursor: string | undefined): Promise<MapSearchResponse> {
  // One row more than the page tells whether another page follows.
  const rows = await listMappedMembersPage(cursor, MAP_PAGE_SIZE + 1);
  const page = rows.slice(0, MAP_PAGE_SIZE);
  const members = page.map((row) => ({ slug: row.slug, display_name: row.displayName, city: row.city, country: row.country, latitude: row.latitude, longitude: row.longitude }));
  return { members, next_cursor: rows.length > MAP_PAGE_SIZE ? (page.at(-1)?.slug ?? null) : null };
}

function cursorOf(target: string): { ok: true; cursor: string | undefined } | { ok: false } {
  const params = new URLSearchParams(queryOf(target));
  const values = params.getAll("cursor");
  if (values.length === 0) return { ok: true, cursor: undefined };
  const [value] = values;
  if (values.length > 1 || value === undefined || value.length > CURSOR_MAX || !CURSOR.test(value)) return { ok: false };
  return { ok: true, cursor: value };
}

/** GET /api/map/search[?cursor=…]. */
export async function mapSearchReply(request: ApiRequest): Promise<ApiReply> {
  if (!isSameOriginPageRequest(request.headers)) {
    return errorReply("not_supported", "This path serves only the map page of this site; it is not an API.");
  }
  // Every page spends one unit of the caller's map budget (lib/shared-state: with the memory store a Map lookup), before the database is asked; a
  // verified agent's under its origin, the key admission counts it under too (issue 44).
  const found = publicCaller(request, callerKey(request.headers));
  const charged = chargeCaller(found instanceof Promise ? await found : found, (key) => [{ budget: "mapSearch", key, cost: 1 }]);
  const { refused } = charged instanceof Promise ? await charged : charged;
  if (refused) return rateLimitedReply(refused.retryAfterSeconds);
  const parsed = cursorOf(request.target);
  if (!parsed.ok) return errorReply("invalid_request", "cursor must be the next_cursor of a previous page.");
  const body: MapSearchResponse = await mapMembersPage(parsed.cursor);
  return jsonReply(body, { "cache-control": "no-store", "x-robots-tag": "noindex", vary: "Sec-Fetch-Site, Origin" });
}

/** Equirectangular projection onto a width × height box (x grows east, y grows south). */
export function project(latitude: number, longitude: number, width: number, height: number): { x: number; y: number } {
  return { x: ((longitude + 180) / 360) * width, y: ((90 - latitude) / 180) * height };
}
