import type { MetadataRoute } from "next";
import { absoluteUrl } from "@/lib/config";

// Built per request so the sitemap URL follows the runtime BASE_URL, not the build machine's.
export const dynamic = "force-dynamic";

export default function robots(): MetadataRoute.Robots {
  return {
    rules: [{ userAgent: "*", allow: "/", disallow: ["/api/", "/api/map/search", "/account", "/agent/authorize"] }],
    sitemap: absoluteUrl("/sitemap.xml"),
  };
}
