import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg"],
  poweredByHeader: false,
  // proxy.ts sees every request with a body (its body limits); Next buffers a copy of the body for the route, at most
  // this much. Above the largest route limit (lib/routes: MCP's 4 MiB; tests/unit/routes.test.ts checks).
  experimental: { proxyClientMaxBodySize: 5 * 1024 * 1024 },
  typedRoutes: false,
  // Types are checked by `npm run typecheck` (tsc over the whole project, tests included), a step of npm test. Next's
  // own check in `next build` ran the same program again, skipping the tests' errors: 34 s of every build.
  typescript: { ignoreBuildErrors: true },
  // The docs corpus is read from disk at run time (lib/docs/corpus.ts), and the start compares the database
  // with the checked-in migrations (lib/startup/migrations.ts); make sure deployments ship both.
  outputFileTracingIncludes: { "/*": ["./content/**/*", "./prisma/migrations/**/*", "./prisma/postgres/migrations/**/*"] },
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS.map(([key, value]) => ({ key, value })) }];
  },
};

export default nextConfig;
