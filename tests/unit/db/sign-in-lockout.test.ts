// The sign-in lockout counts before it checks (issue 19, item 1): whatever the parallelism, at most 5 passwords
// per e-mail and 30 per caller are checked against a member's hash in a window without a success. Every call to
// verifyPassword is observed: those against a member's real hash are the passwords "evaluated".
import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { verifySignIn } from "@/lib/auth/sign-in";
import { createMember } from "@/lib/members";

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
  it("checks at most 5 wrong passwords for one e-mail, from 50 parallel callers, and still runs scrypt for every refusal", async () => {
    for (let burst = 0; burst < 2; burst++) {
      const email = await member();
      const clock = new ManualClock();
      const { passwords } = guesses();
      reset();
      const results = await Promise.all(passwords.map((password, i) => verifySignIn(email, password, `198.18.${burst}.${i}`, clock)));
      const successes = results.filter((r) => r !== null).length;
      const wrongChecked = observed.real.filter((p) => p !== RIGHT).length;
      expect(successes).toBeLessThanOrEqual(1);
      expect(wrongChecked).toBeLessThanOrEqual(5);
      // A success gives its reservation back: at most one more wrong guess can then be checked.
      expect(observed.real.length).toBeLessThanOrEqual(successes === 1 ? 6 : 5);
      // Every attempt costs one scrypt, refused or not: timing tells nothing.
      expect(observed.all).toBe(50);
      if (successes === 0) {
        // Locked: the right password is not even checked now.
        reset();
        expect(await verifySignIn(email, RIGHT, "198.18.99.1", clock)).toBeNull();
        expect(observed.real).toEqual([]);
        expect(observed.all).toBe(1);
        // Until the window ends.
        clock.advance(15 * 60);
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
