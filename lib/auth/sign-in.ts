// Member sign-in checks: one generic failure for every reason, constant-time password verification, and a
// lockout that counts before it checks. Each attempt first reserves one unit of the caller's bucket and one
// of the e-mail's (one conditional increment each, lib/rate-limit), and only a reserved attempt has its
// password checked: whatever the parallelism and however many instances share the database, at most 5
// passwords per e-mail and 30 per caller are checked in a 15-minute window without a success. A successful
// sign-in gives its reservations back (like Devise or Keycloak forgetting failures after a success, but
// without wiping failures already counted), so members signing in normally never lock themselves out.
// A refused reservation still runs one scrypt verification, against a dummy hash: timing tells nothing.
import { budgetRule, releaseRateLimit, reserveRateLimit, type RateLimitResult, type RateLimitRule } from "@/lib/rate-limit";
import { findMemberByEmail } from "@/lib/members";
import { normalizeEmail } from "@/lib/members/normalize";
import { dummyPasswordHash, verifyPassword } from "@/lib/members/passwords";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";

export const SIGN_IN_FAILURES_PER_EMAIL: RateLimitRule = budgetRule("signInEmail");
export const SIGN_IN_FAILURES_PER_IP: RateLimitRule = budgetRule("signInIp");

export const GENERIC_SIGN_IN_ERROR = "The e-mail or password is not correct, or too many attempts were made. Try again later.";

export interface SignedInMember {
  id: string;
  email: string;
  name: string;
}

/** Reserves one attempt for the caller, then for the e-mail; a half-made reservation is given back. */
async function reserveAttempt(emailKey: string, callerKey: string, clock: Clock): Promise<{ byIp: RateLimitResult; byEmail: RateLimitResult } | null> {
  // The caller first: a caller already over its allowance cannot spend (and so lock) other members' e-mail buckets.
  const byIp = await reserveRateLimit(SIGN_IN_FAILURES_PER_IP, callerKey, clock);
  if (!byIp.allowed) return null;
  const byEmail = await reserveRateLimit(SIGN_IN_FAILURES_PER_EMAIL, emailKey, clock);
  if (!byEmail.allowed) {
    // No password is checked for this attempt, so the caller's bucket does not keep it.
    await releaseRateLimit(SIGN_IN_FAILURES_PER_IP, callerKey, byIp);
    return null;
  }
  return { byIp, byEmail };
}

/**
 * Returns the member when e-mail and password match and the attempt could be reserved in both buckets;
 * otherwise null. `callerKey` is lib/http/client-ip.ts's key of the request.
 */
export async function verifySignIn(email: string, password: string, callerKey: string, clock: Clock = systemClock): Promise<SignedInMember | null> {
  if (typeof email !== "string" || typeof password !== "string" || email.length > 254 || password.length > 200) return null;
  const emailKey = normalizeEmail(email);
  const reserved = await reserveAttempt(emailKey, callerKey, clock);
  const member = await findMemberByEmail(emailKey);
  // Always exactly one scrypt verification, so timing does not tell known from unknown e-mails or a lockout.
  const hash = reserved && member ? member.passwordHash : await dummyPasswordHash();
  const matches = await verifyPassword(password, hash);
  if (!reserved || !member || !matches) return null;
  await Promise.all([releaseRateLimit(SIGN_IN_FAILURES_PER_EMAIL, emailKey, reserved.byEmail), releaseRateLimit(SIGN_IN_FAILURES_PER_IP, callerKey, reserved.byIp)]);
  return { id: member.id, email: member.email, name: member.displayName };
}
