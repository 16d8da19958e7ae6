// The route table (lib/routes, issues 41 and 43). Next needs its own literals, a file at each path and proxy.ts's
// static matcher; they are tied to the table both ways: every route.ts and page.tsx under app/ has its entry and every
// entry its file, with the same methods; Next's own matcher (its testing helper) sends exactly the entries flagged as
// pages through proxy.ts's page work; the front answers only what the table gives it; every path, dynamic ones
// included, finds its entry. Also: every route file that takes a POST has a class of work and the body limit its
// handler reads; what skips admission is exactly UNQUEUED and the build's static files; and Next's copy of a body
// for proxy.ts (next.config.ts) is never smaller than the largest limit, so proxy.ts can count it.
import fs from "node:fs";
import path from "node:path";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import nextConfig from "@/next.config";
import { config as proxyConfig } from "@/proxy";
import { A2A_BODY_LIMIT } from "@/lib/a2a/jsonrpc";
import { MCP_BODY_LIMIT } from "@/lib/mcp/http";
import { BATCH_MAX_BYTES } from "@/lib/schemas/public-read";
import { AUTH_BODY_LIMIT } from "@/lib/service-auth/http";
import { DEFAULT_BODY_LIMIT, resolveRoute, routeTable, UNMATCHED_ROUTE, UNQUEUED, type RouteMethod } from "@/lib/routes";

const APP = path.resolve(__dirname, "../../app");

interface EndpointFile {
  /** The URL path as app/ spells it ("/docs/[slug]"); route groups "(x)" are left out, as Next does. */
  path: string;
  kind: "route" | "page";
  source: string;
}

/** Every app/…/route.ts and app/…/page.tsx (private "_folders" are not routes). */
function endpointFiles(dir = APP, prefix = ""): EndpointFile[] {
  const out: EndpointFile[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith("_")) continue;
      out.push(...endpointFiles(full, /^\(.*\)$/.test(entry.name) ? prefix : `${prefix}/${entry.name}`));
    } else if (entry.name === "route.ts" || entry.name === "page.tsx") {
      out.push({ path: prefix || "/", kind: entry.name === "route.ts" ? "route" : "page", source: fs.readFileSync(full, "utf8") });
    }
  }
  return out;
}

/** The HTTP methods a route file exports (`export const GET =`, `export const { PUT, … } =`, `export { x as POST }`). */
function exportedMethods(source: string): Set<string> {
  const names = new Set<string>();
  for (const [, name] of source.matchAll(/export const ([A-Z]+) =/g)) names.add(name!);
  for (const [, list] of source.matchAll(/export const \{([^}]+)\} =/g)) for (const name of list!.split(",")) names.add(name.trim());
  for (const [, list] of source.matchAll(/export \{([^}]+)\}/g))
    for (const part of list!.split(","))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
      );
  return names;
}

/** The methods a route file lets through refuseOtherMethods (every other one is its 405), or null if it does not use it. */
function allowedMethods(source: string): Set<string> | null {
  const match = /refuseOtherMethods\(\[([^\]]*)\]\)/.exec(source);
  return match === null ? null : new Set([...match[1]!.matchAll(/"([A-Z]+)"/g)].map(([, method]) => method!));
}

/** Request paths a table path answers: "[x]" is one segment, "[...x]" one or more, "[[...x]]" none or more. */
function concretePaths(template: string): string[] {
  const fill = (optional: string): string =>
    template
      .replace(/\/\[\[\.\.\.[^\]]+\]\]/, optional)
      .replace(/\[\.\.\.[^\]]+\]/g, "some/thing")
      .replace(/\[[^\]]+\]/g, "some-slug");
  return template.includes("[[") ? [fill("") || "/", fill("/some/thing")] : [fill("")];
}

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
  it("has an entry for every route and page file under app/, and a file for every entry", () => {
    const files = endpointFiles();
    expect(files.length).toBeGreaterThanOrEqual(50);
    const table = routeTable();
    const withoutEntry = files.filter((file) => !table.has(file.path)).map((file) => file.path);
    const withoutFile = [...table.keys()].filter((route) => !files.some((file) => file.path === route));
    expect({ withoutEntry, withoutFile }).toEqual({ withoutEntry: [], withoutFile: [] });
    for (const file of files) expect(table.get(file.path)?.page, `${file.path}: page.tsx ⇔ page entry`).toBe(file.kind === "page");
  });

  it("gives each route file's entry the methods the file answers", () => {
    for (const file of endpointFiles().filter((candidate) => candidate.kind === "route")) {
      const methods = new Set<string>(routeTable().get(file.path)!.methods);
      const allowed = allowedMethods(file.source);
      // A route that refuses the others names what it answers; a catch-all or a document answers at least these.
      if (allowed !== null) expect(methods, file.path).toEqual(allowed);
      const exported = exportedMethods(file.source);
      // Next answers HEAD with GET's handler when a file exports no HEAD.
      for (const method of methods) expect(exported.has(method) || (method === "HEAD" && exported.has("GET")), `${file.path} exports ${method}`).toBe(true);
    }
  });

  it("sends exactly the page entries through proxy.ts's page matcher (Next's own matcher decides)", () => {
    const pageMatcher = { matcher: [proxyConfig.matcher[0] as string] };
    expect(typeof proxyConfig.matcher[0]).toBe("string");
    for (const [template, route] of routeTable()) {
      for (const url of concretePaths(template)) {
        expect(unstable_doesMiddlewareMatch({ config: pageMatcher, url, nextConfig }), `${url} (${template})`).toBe(route.page);
      }
    }
    // The matcher's negative lookahead must not leave out a page by a shared prefix (a wrong `$` or `/`).
    expect(unstable_doesMiddlewareMatch({ config: pageMatcher, url: "/no-such-page", nextConfig })).toBe(true);
  });

  it("finds each entry, dynamic segments included, from the paths it answers", () => {
    for (const [template, route] of routeTable()) {
      for (const url of concretePaths(template)) {
        expect(resolveRoute(url), `${url} (${template})`).toEqual({ route: template, workClass: route.workClass, bodyLimit: route.bodyLimit, refusal: route.refusal });
      }
    }
    expect(resolveRoute("/no-such-page")).toEqual({ route: UNMATCHED_ROUTE, workClass: "general", bodyLimit: DEFAULT_BODY_LIMIT, refusal: "rest" });
  });

  it("derives the front's table from the entries' front methods, only on exact paths the route answers", async () => {
    const { FRONT_ROUTES } = await import("@/lib/routes/front");
    const fromTable = [...routeTable()].flatMap(([template, route]) => route.front.map((method) => `${method} ${template}`));
    const served = Object.entries(FRONT_ROUTES).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method} ${route}`));
    expect(fromTable.length).toBeGreaterThan(0);
    expect(new Set(served)).toEqual(new Set(fromTable));
    for (const [template, route] of routeTable()) {
      if (route.front.length === 0) continue;
      expect(template, "the front matches exact paths only").not.toContain("[");
      expect(route.page, template).toBe(false);
      for (const method of route.front) expect(route.methods, `${method} ${template}`).toContain<RouteMethod>(method);
    }
  });

  it("has an entry for every route file that takes a POST, with a class of work", () => {
    const posts = postRoutes();
    expect(posts.length).toBeGreaterThanOrEqual(12);
    for (const route of posts) {
      const concrete = route.replace(/\/\[\.\.\.[^\]]+\]$/, "/callback/credentials");
      expect(resolveRoute(concrete).workClass, route).not.toBeNull();
      if (!route.includes("[")) expect(routeTable().has(route), route).toBe(true);
    }
  });

  it("gives each body-taking route its handler's own limit, and every other path a small one", () => {
    expect(resolveRoute("/oauth2/token").bodyLimit).toBe(AUTH_BODY_LIMIT);
    expect(resolveRoute("/agent/identity").bodyLimit).toBe(AUTH_BODY_LIMIT);
    expect(resolveRoute("/mcp").bodyLimit).toBe(MCP_BODY_LIMIT);
    expect(resolveRoute("/mcp/docs").bodyLimit).toBe(MCP_BODY_LIMIT);
    expect(resolveRoute("/a2a").bodyLimit).toBe(A2A_BODY_LIMIT);
    expect(resolveRoute("/api/v1/batch").bodyLimit).toBe(BATCH_MAX_BYTES);
    expect(resolveRoute("/api/auth/callback/credentials").bodyLimit).toBeLessThanOrEqual(16 * 1024);
    expect(resolveRoute("/docs/anything").bodyLimit).toBe(DEFAULT_BODY_LIMIT);
    expect(resolveRoute("/mcp").refusal).toBe("mcp");
    expect(resolveRoute("/a2a").refusal).toBe("a2a");
  });

  it("lets only UNQUEUED and the build's static files skip admission", () => {
    for (const skip of UNQUEUED) expect(resolveRoute(skip).workClass, skip).toBeNull();
    expect(resolveRoute("/_next/static/chunks/app.js").workClass).toBeNull();
    const skipping = [...routeTable()].filter(([, policy]) => policy.workClass === null).map(([p]) => p);
    expect(skipping.sort()).toEqual([...UNQUEUED].sort());
  });

  it("names each entry's requests by its own path in logs and metrics, whatever fills its dynamic segments", () => {
    for (const template of routeTable().keys()) {
      for (const url of concretePaths(template)) expect(resolveRoute(url).route, `${url} (${template})`).toBe(template);
    }
    expect(resolveRoute("/no/such/page").route).toBe(UNMATCHED_ROUTE);
  });

  it("mounts every route file's handlers through lib/routes/handlers.ts, which observes them without server.ts", () => {
    for (const file of endpointFiles().filter((candidate) => candidate.kind === "route")) {
      expect(file.source, file.path).not.toContain('from "@/lib/http/route"');
      expect(file.source, file.path).not.toContain("corsPreflight");
      expect(file.source, file.path).toContain('from "@/lib/routes/handlers"');
    }
  });

  it("lets Next buffer for proxy.ts at least the largest body a route takes", () => {
    const largest = Math.max(...[...routeTable().values()].map((policy) => policy.bodyLimit));
    expect(nextConfig.experimental?.proxyClientMaxBodySize).toBeGreaterThanOrEqual(largest);
  });
});
