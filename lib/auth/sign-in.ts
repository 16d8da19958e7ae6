// Member sign-in checks: one generic failure for every reason, constant-time password verification,
// and repeated failures per e-mail or per IP slowed down by database-kept buckets.
import { hitRateLimit, peekRateLimit, type RateLimitRule } from "@/lib/rate-limit";
import { findMemberByEmail } from "@/lib/members";
import { normalizeEmail } from "@/lib/members/normalize";
import { dummyPasswordHash, verifyPassword } from "@/lib/members/passwords";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";

export const SIGN_IN_FAILURES_PER_EMAIL: RateLimitRule = { name: "signin-fail:email", limit: 5, windowSeconds: 15 * 60 };
export const SIGN_IN_FAILURES_PER_IP: RateLimitRule = { name: "signin-fail:ip", limit: 30, windowSeconds: 15 * 60 };

export const GENERIC_SIGN_IN_ERROR = "The e-mail or password is not correct, or too many attempts were made. Try again later.";

export interface SignedInMember {
  id: string;
  email: string;
  name: string;
}

/** Returns the member when e-mail and password match and neither bucket is exhausted; otherwise null. */
export async function verifySignIn(email: string, password: string, ip: string, clock: Clock = systemClock): Promise<SignedInMember | null> {
  if (typeof email !== "string" || typeof password !== "string" || email.length > 254 || password.length > 200) return null;
  const emailKey = normalizeEmail(email);
  const [byEmail, byIp] = await Promise.all([peekRateLimit(SIGN_IN_FAILURES_PER_EMAIL, emailKey, clock), peekRateLimit(SIGN_IN_FAILURES_PER_IP, ip, clock)]);
  const member = await findMemberByEmail(emailKey);
  // Always run one scrypt verification so timing does not tell known from unknown e-mails or a lockout.
  const matches = await verifyPassword(password, member?.passwordHash ?? (await dummyPasswordHash()));
  if (member && matches && byEmail.allowed && byIp.allowed) return { id: member.id, email: member.email, name: member.displayName };
  await Promise.all([hitRateLimit(SIGN_IN_FAILURES_PER_EMAIL, emailKey, clock), hitRateLimit(SIGN_IN_FAILURES_PER_IP, ip, clock)]);
  return null;
}
