// The route table (lib/routes, issue 41): every route file that takes a POST has its entry, with a class of work and
// the body limit its handler reads; what skips admission is exactly UNQUEUED and the build's static files; and Next's
// copy of a body for proxy.ts (next.config.ts) is never smaller than the largest limit, so proxy.ts can count it.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import nextConfig from "@/next.config";
import { A2A_BODY_LIMIT } from "@/lib/a2a/jsonrpc";
import { MCP_BODY_LIMIT } from "@/lib/mcp/http";
import { BATCH_MAX_BYTES } from "@/lib/schemas/public-read";
import { AUTH_BODY_LIMIT } from "@/lib/service-auth/http";
import { DEFAULT_BODY_LIMIT, routePolicy, routeTable, UNQUEUED } from "@/lib/routes";

/** A route file whose POST runs a handler (not a 404 or 405 answer shared by every method). */
const TAKES_POST = /export const POST = apiRoute\(|export \{ handler as GET, handler as POST \}/;

/** app/…/route.ts files that take a POST, as URL paths ("[...x]" segments end the path: a prefix). */
function postRoutes(dir = path.resolve(__dirname, "../../app"), prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...postRoutes(full, `${prefix}/${entry.name}`));
    else if (entry.name === "route.ts" && TAKES_POST.test(fs.readFileSync(full, "utf8"))) out.push(prefix || "/");
  }
  return out;
}

describe("the route table", () => {
  it("has an entry for every route file that takes a POST, with a class of work", () => {
    const posts = postRoutes();
    expect(posts.length).toBeGreaterThanOrEqual(12);
    for (const route of posts) {
      const concrete = route.replace(/\/\[\.\.\.[^\]]+\]$/, "/callback/credentials");
      expect(routePolicy(concrete).workClass, route).not.toBeNull();
      if (!route.includes("[")) expect(routeTable().has(route), route).toBe(true);
    }
  });

  it("gives each body-taking route its handler's own limit, and every other path a small one", () => {
    expect(routePolicy("/oauth2/token").bodyLimit).toBe(AUTH_BODY_LIMIT);
    expect(routePolicy("/agent/identity").bodyLimit).toBe(AUTH_BODY_LIMIT);
    expect(routePolicy("/mcp").bodyLimit).toBe(MCP_BODY_LIMIT);
    expect(routePolicy("/mcp/docs").bodyLimit).toBe(MCP_BODY_LIMIT);
    expect(routePolicy("/a2a").bodyLimit).toBe(A2A_BODY_LIMIT);
    expect(routePolicy("/api/v1/batch").bodyLimit).toBe(BATCH_MAX_BYTES);
    expect(routePolicy("/api/auth/callback/credentials").bodyLimit).toBeLessThanOrEqual(16 * 1024);
    expect(routePolicy("/docs/anything").bodyLimit).toBe(DEFAULT_BODY_LIMIT);
    expect(routePolicy("/mcp").refusal).toBe("mcp");
    expect(routePolicy("/a2a").refusal).toBe("a2a");
  });

  it("lets only UNQUEUED and the build's static files skip admission", () => {
    for (const skip of UNQUEUED) expect(routePolicy(skip).workClass, skip).toBeNull();
    expect(routePolicy("/_next/static/chunks/app.js").workClass).toBeNull();
    const skipping = [...routeTable()].filter(([, policy]) => policy.workClass === null).map(([p]) => p);
    expect(skipping.sort()).toEqual([...UNQUEUED].sort());
  });

  it("lets Next buffer for proxy.ts at least the largest body a route takes", () => {
    const largest = Math.max(...[...routeTable().values()].map((policy) => policy.bodyLimit));
    expect(nextConfig.experimental?.proxyClientMaxBodySize).toBeGreaterThanOrEqual(largest);
  });
});
