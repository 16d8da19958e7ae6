// Cross-site request protection for the human pages' form POSTs (approval decisions, revoking a
// delegation). Origin cannot carry it: under Referrer-Policy: no-referrer the browser sends
// "Origin: null" on the page's own form POST. So a form carries a token that only this service can
// mint, bound to the signed-in member, the purpose and the object acted upon (HMAC with the auth secret),
// and the request's Fetch metadata and Origin are refused when they name another site.
import { createHmac } from "node:crypto";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { getAuthSecret } from "@/lib/local-secrets";
import { constantTimeEqual } from "@/lib/crypto/secrets";
import type { HeaderReader } from "@/lib/http/api";

export type FormPurpose = "agent-authorize-decision" | "delegation-revoke" | "consent-settings";

/** A form stays usable as long as a member session lasts (8 hours). */
export const FORM_TOKEN_LIFETIME_SECONDS = 8 * 60 * 60;

export interface FormBinding {
  purpose: FormPurpose;
  memberId: string;
  /** The object the form acts on, e.g. the delegation id or a hash of the attempt token. */
  subject: string;
}

async function mac(binding: FormBinding, issuedAt: number): Promise<string> {
  // NUL separators: no field can run into the next (ids never contain NUL).
  const message = ["agent-gate-form-v1", binding.purpose, binding.memberId, binding.subject, String(issuedAt)].join("\u0000");
  return createHmac("sha256", await getAuthSecret())
    .update(message, "utf8")
    .digest("base64url");
}

/** The hidden-field value for a form: "<issued at, unix seconds>.<HMAC>". */
export async function createFormToken(binding: FormBinding, clock: Clock = systemClock): Promise<string> {
  const issuedAt = Math.floor(clock.now().getTime() / 1000);
  return `${issuedAt}.${await mac(binding, issuedAt)}`;
}

export async function verifyFormToken(binding: FormBinding, token: string | null | undefined, clock: Clock = systemClock): Promise<boolean> {
  if (typeof token !== "string" || token.length > 200) return false;
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const issuedAt = Number(match[1]);
  const now = Math.floor(clock.now().getTime() / 1000);
  // A little allowance for clock steps between instances; never a token from the far future.
  if (issuedAt > now + 60 || now - issuedAt > FORM_TOKEN_LIFETIME_SECONDS) return false;
  return constantTimeEqual(match[2]!, await mac(binding, issuedAt));
}

/**
 * False when the browser says the request comes from another site. Sec-Fetch-Site is sent by every
 * current browser; only "same-origin" is accepted when present. An Origin header other than "null" must be
 * this service's origin (from BASE_URL). Neither header alone is relied on: the form token is required too.
 */
export function isSameOriginRequest(headers: HeaderReader): boolean {
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") return false;
  const origin = headers.get("origin");
  if (origin !== null && origin !== "null" && origin !== new URL(getConfig().baseUrl).origin) return false;
  return true;
}
