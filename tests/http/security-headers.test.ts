// Issue 19, item 7: no 'unsafe-inline' anywhere. Pages carry a per-request nonce that Next puts on its own
// scripts; everything else has the static policy (same-origin script files only). Strict-Transport-Security
// when BASE_URL is https. Playwright (tests/e2e/csp.spec.ts) proves the pages work under it in Chromium.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { registerClaim } from "@/lib/service-auth/lifecycle";
import { STRICT_TRANSPORT_SECURITY } from "@/lib/http/security-headers";
import { sessionCookie } from "../support/browser-session";
import { startServer, type TestServer } from "../support/server";
import { configureFile } from "../support/config";

const base = inject("baseUrl");

beforeAll(() => {
  // Claim attempts are written into the shared server's database.
  configureFile({ DATABASE_URL: inject("databaseUrl") });
});

function directives(policy: string | null): Map<string, string[]> {
  return new Map(
    (policy ?? "")
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
}

/** Asserts the page policy of a response and that every script of its HTML carries its nonce; returns the nonce. */
async function expectPagePolicy(res: Response): Promise<string> {
  const policy = res.headers.get("content-security-policy");
  expect(policy).not.toContain("unsafe-inline");
  expect(policy).not.toContain("unsafe-eval");
  const parsed = directives(policy);
  const scripts = parsed.get("script-src") ?? [];
  const nonce = scripts.find((v) => /^'nonce-[A-Za-z0-9+/]{22}==?'$/.test(v));
  expect(nonce, policy ?? "").toBeDefined();
  expect(scripts).toContain("'strict-dynamic'");
  expect(parsed.get("style-src")).toContain(nonce);
  expect(parsed.get("frame-ancestors")).toEqual(["'none'"]);
  const value = nonce!.slice("'nonce-".length, -1);
  const html = await res.text();
  const tags = html.match(/<script\b[^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) expect(tag).toContain(`nonce="${value}"`);
  return value;
}

const PUBLIC_PAGES = ["/", "/login", "/docs", "/docs/getting-started", "/map", "/members/ada-lovelace", "/agent/authorize/done?result=approved", "/no-such-page"];

describe("pages: a nonce per request, no 'unsafe-inline'", () => {
  for (const path of PUBLIC_PAGES) {
    it(`GET ${path}`, async () => {
      const res = await fetch(`${base}${path}`);
      expect([200, 404]).toContain(res.status);
      await expectPagePolicy(res);
      expect(res.headers.get("strict-transport-security")).toBeNull(); // BASE_URL is http://localhost here
    });
  }

  it("the signed-in pages: /account and /agent/authorize", async () => {
    const cookie = await sessionCookie(base, "sofia@example.com");
    await expectPagePolicy(await fetch(`${base}/account`, { headers: { Cookie: cookie } }));
    const claim = await registerClaim({ loginHint: "sofia@example.com", clientName: "CSP Agent", scopes: ["agent.account.read"] });
    const res = await fetch(`${base}/agent/authorize?claim_attempt_token=${claim.attempt.attemptToken}`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    await expectPagePolicy(res);
  });

  it("never the same nonce twice", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 5; i++) nonces.add(await expectPagePolicy(await fetch(`${base}/login`)));
    expect(nonces.size).toBe(5);
  });
});

describe("everything else: the static policy", () => {
  it.each([
    ["GET", "/api/nope"],
    ["GET", "/.well-known/jwks.json"],
    ["GET", "/docs/getting-started.md"],
    ["GET", "/ask?query=revocation"],
    ["POST", "/oauth2/token"],
  ])("%s %s", async (method, path) => {
    const res = await fetch(`${base}${path}`, { method });
    const parsed = directives(res.headers.get("content-security-policy"));
    expect(parsed.get("script-src")).toEqual(["'self'"]);
    expect(res.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(res.headers.get("content-security-policy")).not.toContain("nonce-");
  });

  it("the form-refusal page's one style element is allowed by its hash", async () => {
    const res = await fetch(`${base}/account/revoke`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site" },
      body: "registration_id=x",
    });
    expect(res.status).toBe(403);
    const html = await res.text();
    const styles = [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(1);
    expect(html).not.toMatch(/ style="/);
    const hash = `'sha256-${createHash("sha256").update(styles[0]!).digest("base64")}'`;
    expect(directives(res.headers.get("content-security-policy")).get("style-src")).toContain(hash);
  });
});

describe("an https BASE_URL", () => {
  let server: TestServer;
  beforeAll(async () => {
    // Still plain http on the loopback (TLS ends in front of it); a .localhost host is not production.
    server = await startServer({ label: "https-base", env: { BASE_URL: "https://gate.localhost" } });
  });
  afterAll(() => server?.stop());

  it.each(PUBLIC_PAGES)("GET %s sends Strict-Transport-Security and the nonce policy", async (path) => {
    const res = await fetch(`${server.baseUrl}${path}`);
    expect(res.headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    await expectPagePolicy(res);
  });

  it("API answers carry it too, from the node:http front and from Next alike (server.ts sets it on every answer)", async () => {
    for (const path of ["/ask?query=revocation", "/openapi.json", "/healthz", "/.well-known/openid-configuration"]) {
      const res = await fetch(`${server.baseUrl}${path}`);
      expect(res.headers.get("strict-transport-security"), path).toBe("max-age=63072000; includeSubDomains");
    }
  });

  it("the value is the one issue 19 asks for", () => {
    expect(STRICT_TRANSPORT_SECURITY).toBe("max-age=63072000; includeSubDomains");
  });
});
