import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { ManualClock } from "@/lib/clock";
import { verifySignIn, SIGN_IN_FAILURES_PER_ACCOUNT } from "@/lib/auth/sign-in";
import { sha256 } from "@/lib/crypto/secrets";
import { getDb } from "@/lib/db/prisma";
import { DEMO_PASSWORD } from "@/lib/demo/data";
import { createMember, DuplicateMemberError } from "@/lib/members";
import { hashPassword, verifyPassword } from "@/lib/members/passwords";

describe("members", () => {
  it("stores a normalized e-mail, a scrypt hash (never the password) and a free slug", async () => {
    const member = await createMember({ email: "  New.Person@Example.COM ", password: "correct horse", displayName: "Ada Lovelace" });
    expect(member.email).toBe("new.person@example.com");
    expect(member.passwordHash).toMatch(/^scrypt\$/);
    expect(member.passwordHash).not.toContain("correct horse");
    expect(member.slug).toBe("ada-lovelace-2"); // the demo data has ada-lovelace
    expect(member.displayNameKey).toBe("ada lovelace");
  });

  it("refuses a duplicate e-mail, whatever its case", async () => {
    await expect(createMember({ email: "ADA@example.com", password: "another pass", displayName: "Someone" })).rejects.toBeInstanceOf(DuplicateMemberError);
  });

  it.each([
    [{ email: "not-an-email", password: "long enough", displayName: "X" }],
    [{ email: "ok@example.com", password: "short", displayName: "X" }],
    [{ email: "ok@example.com", password: "long enough", displayName: "   " }],
    [{ email: "ok@example.com", password: "long enough", displayName: "bad\u0007name" }],
  ])("refuses bad input %j", async (input) => {
    await expect(createMember(input)).rejects.toBeInstanceOf(ZodError);
  });

  it("verifies passwords in constant time against the stored hash", async () => {
    const hash = await hashPassword("pa55word!");
    expect(await verifyPassword("pa55word!", hash)).toBe(true);
    expect(await verifyPassword("pa55word?", hash)).toBe(false);
    expect(await verifyPassword("pa55word!", "garbage")).toBe(false);
  });
});

describe("sign-in checks", () => {
  it("accepts the right password for a demo member", async () => {
    expect(await verifySignIn("Grace@Example.com", DEMO_PASSWORD, "192.0.2.1")).toMatchObject({ email: "grace@example.com", name: "Grace Hopper" });
  });

  it("gives the same null for a wrong password and an unknown e-mail", async () => {
    expect(await verifySignIn("grace@example.com", "wrong", "192.0.2.2")).toBeNull();
    expect(await verifySignIn("nobody@example.com", DEMO_PASSWORD, "192.0.2.2")).toBeNull();
  });

  it("bounds failures for one e-mail across callers: even the right password from a new caller is refused until the hour passes", async () => {
    const clock = new ManualClock(new Date());
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT.limit; i++) expect(await verifySignIn("alan@example.com", `wrong-${i}`, `198.51.100.${i}`, clock)).toBeNull();
    expect(await verifySignIn("alan@example.com", DEMO_PASSWORD, "198.51.100.200", clock)).toBeNull();
    clock.advance(SIGN_IN_FAILURES_PER_ACCOUNT.windowSeconds + 1);
    expect(await verifySignIn("alan@example.com", DEMO_PASSWORD, "198.51.100.200", clock)).not.toBeNull();
  });

  it("slows down repeated failures from one IP across e-mails", async () => {
    const clock = new ManualClock(new Date());
    for (let i = 0; i < 30; i++) await verifySignIn(`guess${i}@example.com`, "wrong", "203.0.113.66", clock);
    expect(await verifySignIn("katherine@example.com", DEMO_PASSWORD, "203.0.113.66", clock)).toBeNull();
    expect(await verifySignIn("katherine@example.com", DEMO_PASSWORD, "203.0.113.67", clock)).not.toBeNull();
  });

  it("writes no rate-limit bucket on success", async () => {
    await verifySignIn("sofia@example.com", DEMO_PASSWORD, "192.0.2.50");
    expect(await getDb().rateLimitBucket.findUnique({ where: { key: `signin-fail:account:${sha256("sofia@example.com")}` } })).toBeNull();
    expect(await getDb().rateLimitBucket.findUnique({ where: { key: "signin-fail:ip:192.0.2.50" } })).toBeNull();
  });
});
