import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg"],
  poweredByHeader: false,
  // proxy.ts sees every request with a body (its body limits); Next buffers a copy of the body for the route, at most
  // this much. Above the largest route limit (lib/routes: MCP's 4 MiB; tests/unit/routes.test.ts checks).
  // Each route's code is loaded on its first request rather than all of it at start (Next's documented option): a start
  // costs a third less CPU (2.35 → 1.6 core-s to ready), an instance keeps in memory only the routes it serves, and a
  // route's first request pays its load once (tens of milliseconds). Issue 51 item 8: the tests start about 170 servers a run.
  experimental: { proxyClientMaxBodySize: 5 * 1024 * 1024, preloadEntriesOnStart: false },
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
