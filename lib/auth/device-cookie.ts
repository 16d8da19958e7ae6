// Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a browser that signed in as a
// member carries a signed cookie naming that member and a random device id. Its sign-in attempts for that member
// count against that device only, so nobody else's failures can lock it out. The value is
// "v1.<member id>.<device id>.<expiry, Unix seconds>.<HMAC-SHA256>", the key derived from the auth secret.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { getAuthSecret } from "@/lib/local-secrets";

export const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

const VERSION = "v1";
const PART = /^[A-Za-z0-9_-]{1,64}$/;

/** The cookie's name: under https a __Host- name, which browsers accept only Secure, on "/", without a Domain. */
export function deviceCookieName(secure: boolean): string {
  return secure ? "__Host-agent-gate-device" : "agent-gate-device";
}

/** How the cookie is set: HttpOnly, SameSite=Lax, on "/", Secure under an https BASE_URL, for a year. */
export function deviceCookieOptions(secure: boolean): { httpOnly: true; sameSite: "lax"; secure: boolean; path: "/"; maxAge: number } {
  return { httpOnly: true, sameSite: "lax", secure, path: "/", maxAge: DEVICE_COOKIE_MAX_AGE_SECONDS };
}

const derivedKeys = new Map<string, Buffer>();

/** A key of its own, so a device cookie's MAC can never be mistaken for anything else made from the auth secret. */
async function deviceKey(): Promise<Buffer> {
  const secret = await getAuthSecret();
  let key = derivedKeys.get(secret);
  if (!key) {
    key = createHmac("sha256", secret).update("agent-gate device cookie v1").digest();
    derivedKeys.set(secret, key);
  }
  return key;
}

const mac = (key: Buffer, payload: string): Buffer => createHmac("sha256", key).update(payload).digest();

/** A fresh device id: 128 bits from the CSPRNG. */
export function newDeviceId(): string {
  return randomBytes(16).toString("base64url");
}

/** The cookie value for this member's device, valid for DEVICE_COOKIE_MAX_AGE_SECONDS from `now`. */
export async function issueDeviceCookie(memberId: string, deviceId: string, now: Date): Promise<string> {
  if (!PART.test(memberId) || !PART.test(deviceId)) throw new Error("a device cookie holds URL-safe ids only");
  const expires = Math.floor(now.getTime() / 1000) + DEVICE_COOKIE_MAX_AGE_SECONDS;
  const payload = `${VERSION}.${memberId}.${deviceId}.${expires}`;
  return `${payload}.${mac(await deviceKey(), payload).toString("base64url")}`;
}

/** The device id when `value` is an unexpired cookie this service signed for `memberId`; otherwise null. */
export async function readDeviceCookie(value: string, memberId: string, now: Date): Promise<string | null> {
  const parts = value.split(".");
  if (parts.length !== 5 || value.length > 300) return null;
  const [version, member, deviceId, expires, signature] = parts as [string, string, string, string, string];
  if (version !== VERSION || !PART.test(deviceId) || !/^[0-9]{1,12}$/.test(expires)) return null;
  const expected = mac(await deviceKey(), `${version}.${member}.${deviceId}.${expires}`);
  const given = Buffer.from(signature, "base64url");
  // Constant time over the MAC; a cookie of another member or past its expiry is refused only after it.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (member !== memberId || Number(expires) * 1000 <= now.getTime()) return null;
  return deviceId;
}

/** The value of cookie `name` in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}
