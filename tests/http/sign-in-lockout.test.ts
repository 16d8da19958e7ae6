// The sign-in counters over HTTP (issue 19, item 1; issue 41, item 4): fifty parallel guesses through next-auth's
// credentials callback, the right password at a random position, each guess from its own address (TRUSTED_PROXY=1
// and X-Forwarded-For; the second instance keys by socket), against one server and against two `next start`
// instances on one database. At most one guess signs in, and the database never counts more than 20 passwords
// checked for the e-mail in its hour (issue 41 changed this from 5 per e-mail by design: that bound let anyone lock
// a member out). Then the member's side: a hostile client's failures neither lock out a first sign-in from another
// address nor a device that holds the member's device cookie.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "@/lib/db/sql";
import { sha256 } from "@/lib/crypto/secrets";
import { startServer, type TestServer } from "../support/server";
import { LoopbackBrowser } from "../support/loopback-browser";
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

const emailBucketCount = (email: string): Promise<number> => bucketCount(`signin-fail:account:${sha256(email)}`);

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
    // Reservations are counted before the check, and a success gives its own back: never more than 20 remain.
    expect(await emailBucketCount(email)).toBeLessThanOrEqual(20);
    // Spend the rest of the hour's cap one guess at a time (admission control may have refused part of the burst
    // before it was counted; the first server trusts X-Forwarded-For, so each guess comes from a fresh address).
    for (let i = await emailBucketCount(email); i < 20; i++) expect(await signIn(await prepare(bases[0]!), email, `top-up ${i}`, freshIp())).toBe(false);
    expect(await emailBucketCount(email)).toBe(20);
    // Capped: the right password from a fresh address without a device cookie, on any instance, is refused now.
    for (const base of bases) expect(await signIn(await prepare(base), email, PASSWORD, freshIp())).toBe(false);
  }
}

const DEVICE_COOKIE = "agent-gate-device";

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

  it("one server: at most 20 passwords checked per e-mail, at most one sign-in", async () => {
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
  it("a hostile client cannot lock the member out: a first sign-in elsewhere succeeds, and the member's device survives a spent hourly cap", async () => {
    const email = await newMember();
    const port = two.port;
    // The member's own browser signed in before: it holds the device cookie (HttpOnly, SameSite=Lax, long-lived).
    const device = new LoopbackBrowser(port, "127.0.0.1");
    const first = await device.signIn(email, PASSWORD);
    expect(first.signedIn).toBe(true);
    const line = first.setCookies.find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
    expect(line).toBeDefined();
    expect(line).toMatch(/; HttpOnly/i);
    expect(line).toMatch(/; SameSite=Lax/i);
    expect(line).toMatch(/; Path=\//i);
    expect(Number(/Max-Age=(\d+)/i.exec(line!)?.[1])).toBeGreaterThanOrEqual(180 * 24 * 60 * 60);
    expect(line).not.toMatch(/; Secure/i); // BASE_URL is http here

    // A hostile client on 127.0.0.2: eight wrong passwords, all refused.
    const hostile = new LoopbackBrowser(port, "127.0.0.2");
    for (let i = 0; i < 8; i++) expect((await hostile.signIn(email, `wrong guess ${i}`)).signedIn).toBe(false);

    // A well-behaved client on 127.0.0.3, with no device cookie (its first sign-in from there), gets in at once.
    const elsewhere = new LoopbackBrowser(port, "127.0.0.3");
    expect(elsewhere.jar.has(DEVICE_COOKIE)).toBe(false);
    expect((await elsewhere.signIn(email, PASSWORD)).signedIn).toBe(true);

    // Many addresses spend the e-mail's hourly cap (20 wrong passwords across all callers without a device cookie).
    for (let i = 0; i < 20; i++) await new LoopbackBrowser(port, `127.0.0.${10 + i}`).signIn(email, `spread guess ${i}`);
    expect(await emailBucketCount(email)).toBe(20);
    // Capped: the right password from a new address without the cookie is refused ...
    expect((await new LoopbackBrowser(port, "127.0.0.50").signIn(email, PASSWORD)).signedIn).toBe(false);
    // ... while the device that signed in before still signs in.
    expect((await device.signIn(email, PASSWORD)).signedIn).toBe(true);
  }, 120_000);
});
