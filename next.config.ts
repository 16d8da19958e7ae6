import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg"],
  poweredByHeader: false,
  typedRoutes: false,
  // The docs corpus is read from disk at run time (lib/docs/corpus.ts); make sure deployments ship it.
  outputFileTracingIncludes: { "/*": ["./content/**/*"] },
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS.map(([key, value]) => ({ key, value })) }];
  },
};

export default nextConfig;
