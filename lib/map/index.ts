// The human map page's data: members who chose a public profile and gave a location. Served only to
// the /map page itself (same-origin browser fetches); it is not an agent or bulk API (SPEC.md 7).
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { jsonReply, type ApiReply, type ApiRequest, type HeaderReader } from "@/lib/http/api";
import { errorReply } from "@/lib/http/errors";
import { listMappedMembers } from "@/lib/members/store";

export const mapMemberSchema = z.object({
  slug: z.string(),
  display_name: z.string(),
  city: z.string().nullable(),
  country: z.string().nullable(),
  latitude: z.number(),
  longitude: z.number(),
});
export type MapMember = z.infer<typeof mapMemberSchema>;
export const mapSearchResponseSchema = z.object({ members: z.array(mapMemberSchema) });
export type MapSearchResponse = z.infer<typeof mapSearchResponseSchema>;

const MAX_MAP_MEMBERS = 1000;

/**
 * A fetch made by a page of this very site: the browser says Sec-Fetch-Site: same-origin (scripts
 * cannot forge Sec- headers) and, when it sends an Origin, that Origin is ours (from BASE_URL).
 */
export function isSameOriginPageRequest(headers: HeaderReader): boolean {
  if (headers.get("sec-fetch-site") !== "same-origin") return false;
  const origin = headers.get("origin");
  return origin === null || origin === getConfig().baseUrl;
}

export async function listMapMembers(): Promise<MapMember[]> {
  const rows = await listMappedMembers(MAX_MAP_MEMBERS);
  return rows.map((row) => ({ slug: row.slug, display_name: row.displayName, city: row.city, country: row.country, latitude: row.latitude, longitude: row.longitude }));
}

/** GET /api/map/search. */
export async function mapSearchReply(request: ApiRequest): Promise<ApiReply> {
  if (!isSameOriginPageRequest(request.headers)) {
    return errorReply("not_supported", "This path serves only the map page of this site; it is not an API.");
  }
  const body: MapSearchResponse = { members: await listMapMembers() };
  return jsonReply(body, { "cache-control": "no-store", "x-robots-tag": "noindex", vary: "Sec-Fetch-Site, Origin" });
}

/** Equirectangular projection onto a width × height box (x grows east, y grows south). */
export function project(latitude: number, longitude: number, width: number, height: number): { x: number; y: number } {
  return { x: ((longitude + 180) / 360) * width, y: ((90 - latitude) / 180) * height };
}
