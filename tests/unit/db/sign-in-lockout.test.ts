// The sign-in counters count before they check (issue 19, item 1) and cannot be turned against the member (issue 41,
// item 4): whatever the parallelism, at most 20 passwords per e-mail an hour (from callers without the member's
// device cookie), 10 per e-mail and caller and 30 per caller are checked in a window without a success. Every call
// to verifyPassword is observed: those against a member's real hash are the passwords "evaluated".
// Issue 41 changed the first bound by design: 5 per e-mail from anywhere let anyone lock a member out.
import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { BACKOFF_FROM, SIGN_IN_FAILURES_PER_ACCOUNT, SIGN_IN_FAILURES_PER_DEVICE, SIGN_IN_FAILURES_PER_EMAIL_AND_CALLER, verifySignIn } from "@/lib/auth/sign-in";
import { DEVICE_COOKIE_MAX_AGE_SECONDS, deviceCookieName, deviceCookieOptions, issueDeviceCookie, newDeviceId, readDeviceCookie } from "@/lib/auth/device-cookie";
import { createMember, findMemberByEmail } from "@/lib/members";
import { query } from "@/lib/db";

const observed = vi.hoisted(() => ({ real: [] as string[], all: 0 }));

vi.mock("@/lib/members/passwords", async (importOriginal) => {
  const original = await importOriginal<typeof import("@/lib/members/passwords")>();
  return {
    ...original,
    async verifyPassword(password: string, stored: string): Promise<boolean> {
      observed.all += 1;
      if (stored !== (await original.dummyPasswordHash())) observed.real.push(password);
      return original.verifyPassword(password, stored);
    },
  };
});

const RIGHT = "the right password";

async function member(): Promise<string> {
  const email = `lockout-${randomBytes(6).toString("hex")}@example.com`;
  await createMember({ email, password: RIGHT, displayName: `Lockout ${email.slice(8, 20)}`, publicProfile: false });
  return email;
}

function reset(): void {
  observed.real.length = 0;
  observed.all = 0;
}

/** Fifty guesses, the right one at a random position. */
function guesses(): { passwords: string[]; right: number } {
  const right = Math.floor(Math.random() * 50);
  return { passwords: Array.from({ length: 50 }, (_, i) => (i === right ? RIGHT : `wrong guess ${i}`)), right };
}

describe("the sign-in lockout under parallel guesses", () => {
  it("checks at most 20 wrong passwords for one e-mail, from 50 parallel callers, and still runs scrypt for every refusal", async () => {
    for (let burst = 0; burst < 2; burst++) {
      const email = await member();
      const clock = new ManualClock();
      const { passwords } = guesses();
      reset();
      const results = await Promise.all(passwords.map((password, i) => verifySignIn(email, password, `198.18.${burst}.${i}`, clock)));
      const successes = results.filter((r) => r !== null).length;
      const wrongChecked = observed.real.filter((p) => p !== RIGHT).length;
      expect(successes).toBeLessThanOrEqual(1);
      expect(wrongChecked).toBeLessThanOrEqual(20);
      // A success gives its reservation back: at most one more wrong guess can then be checked.
      expect(observed.real.length).toBeLessThanOrEqual(successes === 1 ? 21 : 20);
      // Every attempt costs one scrypt, refused or not: timing tells nothing.
      expect(observed.all).toBe(50);
      if (successes === 0) {
        // Capped for callers without a device cookie: the right password is not even checked now.
        reset();
        expect(await verifySignIn(email, RIGHT, "198.18.99.1", clock)).toBeNull();
        expect(observed.real).toEqual([]);
        expect(observed.all).toBe(1);
        // Until the hour ends.
        clock.advance(60 * 60);
        expect(await verifySignIn(email, RIGHT, "198.18.99.1", clock)).not.toBeNull();
      }
    }
  }, 120_000);

  it("checks at most 30 passwords from one caller across many e-mails", async () => {
    const emails = await Promise.all(Array.from({ length: 40 }, () => member()));
    const clock = new ManualClock();
    reset();
    const results = await Promise.all(emails.map((email) => verifySignIn(email, "wrong", "2001:db8:77:1::/64", clock)));
    expect(results.every((r) => r === null)).toBe(true);
    expect(observed.real).toHaveLength(30);
    expect(observed.all).toBe(40);
    // The refused attempts did not spend the e-mails' buckets: from another caller those members still sign in.
    reset();
    const later = await verifySignIn(emails[39]!, RIGHT, "198.51.100.1", clock);
    expect(later).not.toBeNull();
  }, 120_000);

  it("does not count successful sign-ins: a member signs in again and again", async () => {
    const email = await member();
    const clock = new ManualClock();
    for (let i = 0; i < 8; i++) expect(await verifySignIn(email, RIGHT, "203.0.113.5", clock)).not.toBeNull();
    // Four failures still leave room for the right password.
    for (let i = 0; i < 4; i++) expect(await verifySignIn(email, `nope ${i}`, "203.0.113.5", clock)).toBeNull();
    expect(await verifySignIn(email, RIGHT, "203.0.113.5", clock)).not.toBeNull();
  });
});

const failures = async (email: string, caller: Parameters<typeof verifySignIn>[2], clock: ManualClock, count: number): Promise<void> => {
  for (let i = 0; i < count; i++) expect(await verifySignIn(email, `wrong ${i}`, caller, clock)).toBeNull();
};

async function memberId(email: string): Promise<string> {
  return (await findMemberByEmail(email))!.id;
}

describe("failures count per e-mail and caller: someone else's cannot lock the member out", () => {
  it("a hostile caller spends its own allowance; the member signs in from another caller at once", async () => {
    const email = await member();
    const clock = new ManualClock();
    // Spread out so the back-off lets each through: the hostile caller spends its whole allowance.
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL_AND_CALLER.limit; i++) {
      expect(await verifySignIn(email, `wrong ${i}`, "203.0.113.66", clock)).toBeNull();
      clock.advance(70); // past every back-off (at most 32 s here), ten times still within the 15-minute window
    }
    reset();
    // Refused outright now, the right password included (not even checked).
    expect(await verifySignIn(email, RIGHT, "203.0.113.66", clock)).toBeNull();
    expect(observed.real).toEqual([]);
    // Another caller, with no device cookie, is not affected.
    expect(await verifySignIn(email, RIGHT, "203.0.113.67", clock)).not.toBeNull();
  });

  it("slows a caller that keeps failing: an attempt sooner than a growing back-off is refused unchecked", async () => {
    const email = await member();
    const clock = new ManualClock();
    await failures(email, "198.51.100.9", clock, BACKOFF_FROM);
    reset();
    // Too soon after the 5th failure: refused with the generic failure, the right password not checked.
    expect(await verifySignIn(email, RIGHT, "198.51.100.9", clock)).toBeNull();
    expect(observed.real).toEqual([]);
    expect(observed.all).toBe(1);
    clock.advance(2);
    await failures(email, "198.51.100.9", clock, 1);
    // After the 6th the wait has doubled: 2 s are not enough, 4 s are.
    clock.advance(2);
    expect(await verifySignIn(email, RIGHT, "198.51.100.9", clock)).toBeNull();
    clock.advance(2);
    expect(await verifySignIn(email, RIGHT, "198.51.100.9", clock)).not.toBeNull();
  });

  it("lets at most one of a parallel burst from one caller past the back-off", async () => {
    const email = await member();
    const clock = new ManualClock();
    reset();
    await Promise.all(Array.from({ length: 30 }, (_, i) => verifySignIn(email, `wrong ${i}`, "198.51.100.10", clock)));
    expect(observed.real.length).toBe(BACKOFF_FROM);
    expect(observed.all).toBe(30);
  });

  it("bounds distributed guessing: 20 wrong passwords an hour per e-mail across all callers, and records the throttling", async () => {
    const email = await member();
    const clock = new ManualClock();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT.limit; i++) await failures(email, `192.0.2.${i}`, clock, 1);
    reset();
    expect(await verifySignIn(email, RIGHT, "192.0.2.250", clock)).toBeNull();
    expect(observed.real).toEqual([]);
    const events = await query<{ memberId: string | null; detail: string | null }>(`SELECT "memberId", "detail" FROM "AuditEvent" WHERE "type" = $1 AND "memberId" = $2`, [
      "sign_in_throttled",
      await memberId(email),
    ]);
    expect(events).toEqual([{ memberId: await memberId(email), detail: "account" }]);
    clock.advance(60 * 60);
    expect(await verifySignIn(email, RIGHT, "192.0.2.250", clock)).not.toBeNull();
  });
});

describe("device cookies", () => {
  it("are HttpOnly, SameSite=Lax and long-lived; Secure with a __Host- name under https", () => {
    expect(deviceCookieName(true)).toBe("__Host-agent-gate-device");
    expect(deviceCookieOptions(true)).toEqual({ httpOnly: true, sameSite: "lax", secure: true, path: "/", maxAge: 365 * 24 * 60 * 60 });
    expect(deviceCookieName(false)).toBe("agent-gate-device");
    expect(deviceCookieOptions(false).secure).toBe(false);
  });

  /** Spends the e-mail's hourly cap from many callers. */
  async function capSpent(email: string, clock: ManualClock): Promise<void> {
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT.limit; i++) await failures(email, `198.18.200.${i}`, clock, 1);
    expect(await verifySignIn(email, RIGHT, "198.18.201.1", clock)).toBeNull();
  }

  it("a device that signed in before signs in after others spent the cap; its cookie is renewed for the same device", async () => {
    const email = await member();
    const clock = new ManualClock(new Date());
    const first = await verifySignIn(email, RIGHT, "203.0.113.1", clock);
    expect(first).not.toBeNull();
    const id = await memberId(email);
    const deviceId = await readDeviceCookie(first!.deviceCookie, id, clock.now());
    expect(deviceId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    await capSpent(email, clock);
    const again = await verifySignIn(email, RIGHT, { callerKey: "198.18.200.1", deviceCookie: first!.deviceCookie }, clock);
    expect(again).not.toBeNull();
    expect(await readDeviceCookie(again!.deviceCookie, id, clock.now())).toBe(deviceId);
  });

  it("refuses a forged cookie, another member's and an expired one: they count as unknown devices", async () => {
    const email = await member();
    const other = await member();
    const clock = new ManualClock(new Date());
    const id = await memberId(email);
    const valid = await issueDeviceCookie(id, newDeviceId(), clock.now());
    const [payload, signature] = [valid.slice(0, valid.lastIndexOf(".")), valid.slice(valid.lastIndexOf(".") + 1)];
    const forgedSignature = `${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`;
    const forgedMember = valid.replace(id, await memberId(other));
    const othersCookie = await issueDeviceCookie(await memberId(other), newDeviceId(), clock.now());
    const expired = await issueDeviceCookie(id, newDeviceId(), new Date(clock.now().getTime() - DEVICE_COOKIE_MAX_AGE_SECONDS * 1000 - 1000));
    for (const cookie of [forgedSignature, forgedMember, othersCookie, expired, "v1.x.y.1.z", ""]) expect(await readDeviceCookie(cookie, id, clock.now())).toBeNull();
    await capSpent(email, clock);
    for (const deviceCookie of [forgedSignature, forgedMember, othersCookie, expired]) {
      expect(await verifySignIn(email, RIGHT, { callerKey: "198.18.202.1", deviceCookie }, clock)).toBeNull();
    }
    expect(await verifySignIn(email, RIGHT, { callerKey: "198.18.202.1", deviceCookie: valid }, clock)).not.toBeNull();
  });

  it("failures on a device count against that device only", async () => {
    const email = await member();
    const clock = new ManualClock(new Date());
    const signedIn = await verifySignIn(email, RIGHT, "203.0.113.2", clock);
    const device = { callerKey: "203.0.113.2", deviceCookie: signedIn!.deviceCookie };
    for (let i = 0; i < SIGN_IN_FAILURES_PER_DEVICE.limit; i++) {
      await failures(email, device, clock, 1);
      clock.advance(70); // past every back-off (at most 32 s here), ten times still within the 15-minute window
    }
    // The device has spent its own allowance ...
    expect(await verifySignIn(email, RIGHT, device, clock)).toBeNull();
    // ... and nothing else: the same address without the cookie, and the e-mail's hourly cap, are untouched.
    expect(await verifySignIn(email, RIGHT, "203.0.113.2", clock)).not.toBeNull();
    const rows = await query<{ count: number }>(`SELECT "count" FROM "RateLimitBucket" WHERE "key" LIKE 'signin-fail:account:%' AND "count" > 0 AND "key" = $1`, [
      `signin-fail:account:${(await import("@/lib/crypto/secrets")).sha256(email)}`,
    ]);
    expect(rows).toEqual([]);
  });
});
