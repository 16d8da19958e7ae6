// The public profile page's data: only members who chose a public profile, by exact slug.
import { findPublicProfile as findProfileRow } from "./store";

export interface PublicProfile {
  displayName: string;
  slug: string;
  joinedAt: Date;
  city: string | null;
  country: string | null;
}

export async function findPublicProfile(slug: string): Promise<PublicProfile | null> {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) || slug.length > 80) return null;
  return findProfileRow(slug);
}
