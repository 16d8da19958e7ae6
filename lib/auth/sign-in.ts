// Member sign-in checks (issue 41 item 4): one generic failure for every reason, exactly one scrypt verification
// per attempt, and failure counters that cannot be turned against the member.
//
// Every attempt first reserves its units (one conditional increment each, in the database: lib/rate-limit), and only
// an attempt whose units were all reserved has its password checked; a success gives its units back. What counts:
// - A browser holding the member's device cookie (./device-cookie.ts) counts against that device only
//   (signInDevice): nobody else's failures lock it out.
// - Any other attempt counts against its caller (signInIp, across e-mails), the pair of e-mail and caller
//   (signInEmailCaller), and the e-mail across all callers (signInAccount, per hour: distributed guessing stays
//   bounded). A hostile client spends its own pair, not the member's.
// - Within a pair or device, from the BACKOFF_FROM-th failure of a window on the next attempt must wait 2 s, doubling
//   each time; an attempt sooner than that is refused (a one-unit bucket as long as the wait), never slept on.
// A refused attempt still runs scrypt on a dummy hash, so timing tells nothing, and gives back what it reserved.
import { budgetRule, releaseRateLimit, reserveRateLimit, type RateLimitResult, type RateLimitRule } from "@/lib/rate-limit";
import { recordAudit } from "@/lib/audit";
import { sha256 } from "@/lib/crypto/secrets";
import { findMemberByEmail } from "@/lib/members";
import { normalizeEmail } from "@/lib/members/normalize";
import { dummyPasswordHash, verifyPassword } from "@/lib/members/passwords";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { issueDeviceCookie, newDeviceId, readDeviceCookie } from "./device-cookie";

export const SIGN_IN_FAILURES_PER_EMAIL_AND_CALLER: RateLimitRule = budgetRule("signInEmailCaller");
export const SIGN_IN_FAILURES_PER_DEVICE: RateLimitRule = budgetRule("signInDevice");
export const SIGN_IN_FAILURES_PER_ACCOUNT: RateLimitRule = budgetRule("signInAccount");
export const SIGN_IN_FAILURES_PER_IP: RateLimitRule = budgetRule("signInIp");

/** The attempt of a window from which the next one must wait (the first four come as fast as they like). */
export const BACKOFF_FROM = 5;
const BACKOFF_BASE_SECONDS = 2;

/** Seconds the attempt after the `count`-th of a pair's or device's window must wait: 0, then 2, 4, 8, … */
export function backoffSeconds(count: number): number {
  return count < BACKOFF_FROM ? 0 : BACKOFF_BASE_SECONDS * 2 ** (count - BACKOFF_FROM);
}

/** At most one audit event per account (or for all unknown e-mails together) per minute: flooding stays cheap. */
const AUDIT_SPACING: RateLimitRule = { name: "signin-audit", limit: 1, windowSeconds: 60 };

export interface SignedInMember {
  id: string;
  email: string;
  name: string;
  /** The device cookie to set (new, or the device's own renewed). */
  deviceCookie: string;
}

/** Who attempts: lib/http/client-ip.ts's key of the request, and the device cookie it sent, if any. */
export interface SignInCaller {
  callerKey: string;
  deviceCookie?: string | null;
}

/** Why an attempt was refused before its password was checked (the audit event's detail). */
export type ThrottleReason = "caller" | "e-mail and caller" | "device" | "back-off" | "account";

interface Reservation {
  rule: RateLimitRule;
  subject: string;
  result: RateLimitResult;
}

const giveBack = (reservations: readonly Reservation[]): Promise<unknown> => Promise.all(reservations.map(({ rule, subject, result }) => releaseRateLimit(rule, subject, result)));

type Step = { rule: RateLimitRule; subject: string; reason: ThrottleReason } | { backoffOf: string };

/**
 * Reserves each step in order; a refused step gives back what the earlier ones reserved. A back-off step reserves
 * the one-unit wait bucket of the preceding counter, as long as that counter's count asks for.
 */
async function reserveAll(steps: readonly Step[], clock: Clock): Promise<{ reserved: Reservation[] } | { refused: ThrottleReason }> {
  const reserved: Reservation[] = [];
  for (const step of steps) {
    let reservation: Reservation;
    let reason: ThrottleReason;
    if ("backoffOf" in step) {
      const previous = reserved.at(-1);
      const wait = previous ? backoffSeconds(previous.result.limit - previous.result.remaining) : 0;
      if (wait === 0) continue;
      const rule = { name: "signin-wait", limit: 1, windowSeconds: wait };
      reservation = { rule, subject: step.backoffOf, result: await reserveRateLimit(rule, step.backoffOf, clock) };
      reason = "back-off";
    } else {
      reservation = { rule: step.rule, subject: step.subject, result: await reserveRateLimit(step.rule, step.subject, clock) };
      reason = step.reason;
    }
    if (!reservation.result.allowed) {
      await giveBack(reserved);
      return { refused: reason };
    }
    reserved.push(reservation);
  }
  return { reserved };
}

/** The counters an attempt reserves: its device's, or its caller's, its pair's and its e-mail's. */
function stepsOf(emailKey: string, callerKey: string, memberId: string | null, deviceId: string | null): Step[] {
  if (memberId && deviceId) {
    const device = `${memberId}|${deviceId}`;
    return [{ rule: SIGN_IN_FAILURES_PER_DEVICE, subject: device, reason: "device" }, { backoffOf: `device:${device}` }];
  }
  // The e-mail is kept as a hash; the caller first, so a caller over its allowance cannot spend e-mails' buckets.
  const email = sha256(emailKey);
  const pair = `${email}|${callerKey}`;
  return [
    { rule: SIGN_IN_FAILURES_PER_IP, subject: callerKey, reason: "caller" },
    { rule: SIGN_IN_FAILURES_PER_EMAIL_AND_CALLER, subject: pair, reason: "e-mail and caller" },
    { backoffOf: `email-caller:${pair}` },
    { rule: SIGN_IN_FAILURES_PER_ACCOUNT, subject: email, reason: "account" },
  ];
}

/** A throttled attempt in the audit log: the account's id when the e-mail is a member's, and the reason only. */
async function auditThrottled(memberId: string | null, reason: ThrottleReason, clock: Clock): Promise<void> {
  const spacing = await reserveRateLimit(AUDIT_SPACING, memberId ?? "unknown", clock);
  if (spacing.allowed) await recordAudit({ type: "sign_in_throttled", memberId, detail: reason }, clock);
}

/**
 * Returns the member (and the device cookie to set) when e-mail and password match and every counter of the
 * attempt had room; otherwise null. A string `caller` is the caller key of an attempt without a device cookie.
 */
export async function verifySignIn(email: string, password: string, caller: string | SignInCaller, clock: Clock = systemClock): Promise<SignedInMember | null> {
  if (typeof email !== "string" || typeof password !== "string" || email.length > 254 || password.length > 200) return null;
  const { callerKey, deviceCookie } = typeof caller === "string" ? { callerKey: caller, deviceCookie: null } : caller;
  const emailKey = normalizeEmail(email);
  const member = await findMemberByEmail(emailKey);
  const deviceId = member && deviceCookie ? await readDeviceCookie(deviceCookie, member.id, clock.now()) : null;
  const outcome = await reserveAll(stepsOf(emailKey, callerKey, member?.id ?? null, deviceId), clock);
  // Always exactly one scrypt verification, so timing does not tell known from unknown e-mails or a refusal.
  const hash = "reserved" in outcome && member ? member.passwordHash : await dummyPasswordHash();
  const matches = await verifyPassword(password, hash);
  if ("refused" in outcome) {
    await auditThrottled(member?.id ?? null, outcome.refused, clock);
    return null;
  }
  if (!member || !matches) return null;
  await giveBack(outcome.reserved);
  const cookie = await issueDeviceCookie(member.id, deviceId ?? newDeviceId(), clock.now());
  return { id: member.id, email: member.email, name: member.displayName, deviceCookie: cookie };
}
