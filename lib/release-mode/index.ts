import { getConfig } from "@/lib/config";

/** The one switch (CONTRACT.md §7): are authorization discovery documents and links published? */
export function isAuthDiscoveryPublic(): boolean {
  return getConfig().releaseMode === "public";
}
