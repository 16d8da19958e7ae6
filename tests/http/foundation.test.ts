import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/demo/data";
import { startServer, type TestServer } from "../support/server";
import { startProblems } from "../support/log";

const base = inject("baseUrl");

describe("pages", () => {
  it("the home page says what the service is and links to docs, sign-in and account", async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Agent Gate");
    for (const href of ['href="/docs"', 'href="/login"', 'href="/account"']) expect(html).toContain(href);
  });

  it.each(["/", "/login", "/api/nope"])("%s carries the security headers", async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("the account page sends a visitor to sign in and back", async () => {
    const res = await fetch(`${base}/account`, { redirect: "manual" });
    expect([303, 307, 308]).toContain(res.status);
    expect(res.headers.get("location")).toMatch(/\/login\?callbackUrl=%2Faccount$/);
  });
});

async function credentialsSignIn(baseUrl: string, email: string, password: string, headers: Record<string, string> = {}): Promise<{ ok: boolean; cookies: string }> {
  const csrfRes = await fetch(`${baseUrl}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const cookie = csrfRes.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const setCookies = res.headers.getSetCookie();
  const session = setCookies.find((c) => c.includes("next-auth.session-token="));
  return { ok: Boolean(session), cookies: [cookie, ...setCookies.map((c) => c.split(";")[0])].join("; ") };
}

describe("sign-in over HTTP", () => {
  it("a demo member gets a session that the account page accepts", async () => {
    const { ok, cookies } = await credentialsSignIn(base, "edsger@example.com", DEMO_PASSWORD);
    expect(ok).toBe(true);
    const page = await fetch(`${base}/account`, { headers: { cookie: cookies }, redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Edsger Dijkstra");
  });

  it("a wrong password gets no session", async () => {
    expect((await credentialsSignIn(base, "edsger@example.com", "wrong password")).ok).toBe(false);
  });
});

describe("per-IP sign-in slowdown cannot be dodged with X-Forwarded-For (TRUSTED_PROXY=none)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ label: "signin-ip" });
  });
  afterAll(() => server.stop());

  it("30 failures from one socket lock that socket out, whatever header it sends", async () => {
    for (let i = 0; i < 30; i++) {
      const r = await credentialsSignIn(server.baseUrl, `guess${i}@example.com`, "wrong", { "x-forwarded-for": `10.9.${i}.1` });
      expect(r.ok).toBe(false);
    }
    const locked = await credentialsSignIn(server.baseUrl, "ada@example.com", DEMO_PASSWORD, { "x-forwarded-for": "10.200.0.1", "x-agent-gate-peer": "10.200.0.2" });
    expect(locked.ok).toBe(false);
  }, 120_000);
});

describe("start-up configuration", () => {
  it("a bad value stops the process with one clear line naming the variable", async () => {
    const server = await startServer({ env: { RELEASE_MODE: "staging" }, expectExit: true });
    expect(startProblems(server.output())).toEqual(["Invalid configuration: RELEASE_MODE must be public or private"]);
  }, 60_000);

  it("production refuses to start without SIGNING_KEYS and AUTH_SECRET", async () => {
    const server = await startServer({ env: { BASE_URL: "https://gate.example.com" }, expectExit: true });
    expect(startProblems(server.output())).toContainEqual(expect.stringContaining("Invalid configuration: SIGNING_KEYS is required in production"));
  }, 60_000);
});

describe("an unreachable database", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ databaseUrl: "postgresql://nobody:nothing@127.0.0.1:1/none", label: "db-down" });
  });
  afterAll(() => server.stop());

  it("gives 503 temporarily_unavailable with Retry-After on a database-backed API path", async () => {
    const res = await fetch(`${server.baseUrl}/api/auth/session`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
  });

  it("still answers the JSON 404 (no database needed)", async () => {
    const res = await fetch(`${server.baseUrl}/api/nope`);
    expect(res.status).toBe(404);
  });
});
