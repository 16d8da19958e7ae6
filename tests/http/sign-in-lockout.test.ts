// The sign-in lockout over HTTP (issue 19, item 1): fifty parallel guesses through next-auth's credentials
// callback, the right password at a random position, each guess from its own address (TRUSTED_PROXY=1 and
// X-Forwarded-For; the second instance keys by socket), against one server and against two `next start`
// instances on one database. At most one
// guess signs in, and the database never counts more than 5 passwords checked for the e-mail: today's
// peek-then-count code checked all fifty (and signed in whatever the right guess's position).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "@/lib/db/sql";
import { startServer, type TestServer } from "../support/server";
import { freshIp, newMember, startAuthServer, useServerDatabase } from "../support/agent-auth";

const PASSWORD = "demo-password";

function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

interface Prepared {
  base: string;
  csrfToken: string;
  cookies: string[];
}

async function prepare(base: string): Promise<Prepared> {
  const res = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await res.json()) as { csrfToken: string };
  return { base, csrfToken, cookies: cookiesOf(res) };
}

/** One credentials sign-in; true when it set a session cookie. */
async function signIn(p: Prepared, email: string, password: string, ip: string): Promise<boolean> {
  const res = await fetch(`${p.base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: p.cookies.join("; "), "X-Forwarded-For": ip },
    body: new URLSearchParams({ csrfToken: p.csrfToken, email, password, json: "true" }).toString(),
  });
  await res.arrayBuffer();
  return cookiesOf(res).some((c) => /^(__Secure-)?next-auth\.session-token=/.test(c));
}

async function bucketCount(key: string): Promise<number> {
  const rows = await query<{ count: number }>(`SELECT "count" FROM "RateLimitBucket" WHERE "key" = $1`, [key]);
  return rows.length === 0 ? 0 : Number(rows[0]!.count);
}

const emailBucketCount = (email: string): Promise<number> => bucketCount(`signin-fail:email:${email}`);

/** Fifty guesses in parallel, spread over the given servers, the right password at a random position. */
async function burst(bases: string[], email: string): Promise<{ successes: number; right: number }> {
  const right = Math.floor(Math.random() * 50);
  const prepared = await Promise.all(Array.from({ length: 50 }, (_, i) => prepare(bases[i % bases.length]!)));
  const outcomes = await Promise.all(prepared.map((p, i) => signIn(p, email, i === right ? PASSWORD : `wrong guess ${i}`, freshIp())));
  return { successes: outcomes.filter(Boolean).length, right };
}

async function expectLockoutHeld(bases: string[]): Promise<void> {
  for (let round = 0; round < 2; round++) {
    const email = await newMember();
    const { successes } = await burst(bases, email);
    expect(successes).toBeLessThanOrEqual(1);
    // Reservations are counted before the check, and a success gives its own back: never more than 5 remain.
    expect(await emailBucketCount(email)).toBeLessThanOrEqual(5);
    if (successes === 0) {
      expect(await emailBucketCount(email)).toBe(5);
      // Locked: the right password from a fresh address, on any instance, is refused now.
      for (const base of bases) expect(await signIn(await prepare(base), email, PASSWORD, freshIp())).toBe(false);
    }
  }
}

describe("sign-in lockout under fifty parallel guesses", () => {
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    one = await startAuthServer();
    useServerDatabase(one.databaseUrl);
    // The second instance trusts no proxy: its callers are keyed by the socket address, whatever they send.
    two = await startServer({ label: "lockout-two", databaseUrl: one.databaseUrl, env: { TRUSTED_PROXY: "none" } });
  });

  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
  });

  it("one server: at most 5 passwords checked per e-mail, at most one sign-in", async () => {
    await expectLockoutHeld([one.baseUrl]);
  }, 120_000);

  it("two instances on one database: the same bound", async () => {
    await expectLockoutHeld([one.baseUrl, two.baseUrl]);
  }, 120_000);

  it("without a trusted proxy the caller is the socket address: a spoofed X-Forwarded-For neither picks nor escapes the bucket", async () => {
    const email = await newMember();
    const before = await bucketCount("signin-fail:ip:127.0.0.1");
    expect(await signIn(await prepare(two.baseUrl), email, "wrong", "203.0.113.200")).toBe(false);
    expect(await bucketCount("signin-fail:ip:127.0.0.1")).toBe(before + 1);
    expect(await bucketCount("signin-fail:ip:203.0.113.200")).toBe(0);
    expect(await bucketCount("signin-fail:ip:no-address")).toBe(0);
  });

  it("a member who signs in normally is never locked out by it", async () => {
    const email = await newMember();
    const p = await prepare(one.baseUrl);
    for (let i = 0; i < 7; i++) expect(await signIn(p, email, PASSWORD, "198.51.100.77")).toBe(true);
    expect(await emailBucketCount(email)).toBe(0);
  });
});
