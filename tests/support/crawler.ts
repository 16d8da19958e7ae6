// A discovery crawler: starts from the base URL's well-known entry points, follows every link it finds in
// catalogs, cards, indexes, the sitemap, OpenAPI and pages (JSON string values, HTML href/src, XML <loc>,
// markdown link targets, Link headers) on the same origin, and records each URL's status.

export interface CrawlResult {
  /** URL → HTTP status of its probe. */
  statuses: Map<string, number>;
  /** URL → the page that linked it first. */
  foundOn: Map<string, string>;
  /** URL → body text, for documents that were read. */
  bodies: Map<string, string>;
}

/** Endpoints that take no GET: probed with their documented method and a harmless valid request. */
function probeFor(base: string, url: string): RequestInit | undefined {
  const path = new URL(url).pathname;
  const jsonRpc = (body: unknown): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
  switch (path) {
    case "/mcp":
    case "/mcp/docs":
      return jsonRpc({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "crawler", version: "1" } } });
    case "/a2a":
      return jsonRpc({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "00000000-0000-4000-8000-000000000000" } });
    case "/oauth2/revoke":
      return { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "token=aca_crawler" };
    case "/oauth2/token":
      // The only 200 of the token endpoint needs a member's approval; an unknown claim is its documented 400.
      return {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=urn%3Avendor%3Aagent-auth%3Agrant-type%3Aclaim&claim_token=clm_crawler",
      };
    case "/agent/identity":
      return {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "service_auth", login_hint: "crawler@example.com", client_name: "Crawler" }),
      };
    case "/api/v1/batch":
      return {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [{ id: "1", operation: "docs.ask", arguments: { query: "tokens" } }] }),
      };
    case "/api/v1/sandbox/simulate":
      return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ scenario: "agent_auth_pending" }) };
    default:
      return base ? undefined : undefined;
  }
}

/** Probes whose documented success is not 200 (see probeFor). */
export const EXPECTED_NON_200: Record<string, number> = { "/oauth2/token": 400 };

function linksIn(base: string, pageUrl: string, contentType: string, body: string, linkHeader: string | null): string[] {
  const found: string[] = [];
  const add = (raw: string) => {
    try {
      const url = new URL(raw, pageUrl);
      if (url.origin === new URL(base).origin) {
        url.hash = "";
        found.push(url.toString());
      }
    } catch {
      // not a URL
    }
  };
  for (const m of (linkHeader ?? "").matchAll(/<([^>]+)>/g)) add(m[1]!);
  if (contentType.includes("json")) {
    const walk = (value: unknown): void => {
      if (typeof value === "string") {
        if (value.startsWith(`${base}/`) || value === base) add(value);
      } else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    try {
      walk(JSON.parse(body));
    } catch {
      // not JSON after all
    }
  } else if (contentType.includes("xml")) {
    for (const m of body.matchAll(/<loc>([^<]+)<\/loc>/g)) add(m[1]!);
  } else if (contentType.includes("html")) {
    for (const m of body.matchAll(/\s(?:href|src)="([^"]+)"/g)) if (!m[1]!.startsWith("/_next/")) add(m[1]!.replaceAll("&amp;", "&"));
  } else if (contentType.includes("markdown") || contentType.includes("text/plain")) {
    for (const m of body.matchAll(/\]\((\/[^)\s]*|https?:\/\/[^)\s]+)\)/g)) add(m[1]!);
    for (const m of body.matchAll(/^(?:Sitemap|Allow):\s*(\S+)/gim)) add(m[1]!);
  }
  return found;
}

export async function crawl(base: string, seeds: string[], limit = 500): Promise<CrawlResult> {
  const statuses = new Map<string, number>();
  const foundOn = new Map<string, string>();
  const bodies = new Map<string, string>();
  const queue = seeds.map((s) => new URL(s, base).toString());
  for (const s of queue) foundOn.set(s, "(seed)");
  while (queue.length > 0 && statuses.size < limit) {
    const url = queue.shift()!;
    if (statuses.has(url)) continue;
    const probe = probeFor(base, url);
    const res = await fetch(url, probe ?? { redirect: "follow" });
    statuses.set(url, res.status);
    const contentType = res.headers.get("content-type") ?? "";
    const body = await res.text();
    if (probe) continue;
    bodies.set(url, body);
    for (const link of linksIn(base, url, contentType, body, res.headers.get("link"))) {
      if (!foundOn.has(link)) foundOn.set(link, url);
      if (!statuses.has(link)) queue.push(link);
    }
  }
  return { statuses, foundOn, bodies };
}
