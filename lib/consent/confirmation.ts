// The confirmation code (RFC 10027 §6.1.16, request initiation verification): when a member who asked for it
// approves an unsigned agent, the page shows them a 6-digit code that the agent must send back on its next poll.
// A phishing link sent by e-mail then also needs its victim to tell the attacker the code. The code comes from a
// CSPRNG, is kept only as an HMAC (a key of its own derived from AUTH_SECRET, bound to the attempt), compared in
// constant time, and lives as long as the attempt; three wrong codes deny the request.
//
// The server never keeps the code itself: the decision's answer hands it to the member's browser sealed
// (AES-256-GCM, another derived key) in a cookie limited to the approval page and the attempt's remaining time,
// so reloading the page shows it again, and nobody else's browser (nor the database) can read it.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { constantTimeEqual, randomDigits } from "@/lib/crypto/secrets";
import { derivedKey } from "@/lib/local-secrets";

export const CONFIRMATION_CODE_DIGITS = 6;
/** The third wrong code denies the request. */
export const MAX_WRONG_CONFIRMATION_CODES = 3;

const CODE_PURPOSE = "agent-gate confirmation code v1";
const SEAL_PURPOSE = "agent-gate confirmation seal v1";

export function newConfirmationCode(): string {
  return randomDigits(CONFIRMATION_CODE_DIGITS);
}

/** "417 902": three digits, a space, three digits (read aloud or typed in two halves). */
export function displayConfirmationCode(code: string): string {
  return `${code.slice(0, 3)} ${code.slice(3)}`;
}

/** The stored form: an HMAC of the attempt and the code, so one attempt's code never fits another. */
export async function hashConfirmationCode(attemptId: string, code: string): Promise<string> {
  return createHmac("sha256", await derivedKey(CODE_PURPOSE))
    .update(`${attemptId}\u0000${code}`, "utf8")
    .digest("base64url");
}

/** Whether what the agent sent is the code (spaces and dashes a person adds are ignored); constant time. */
export async function confirmationCodeMatches(attemptId: string, sent: string, storedHash: string): Promise<boolean> {
  const code = sent.replace(/[\s-]/g, "");
  const candidate = await hashConfirmationCode(attemptId, /^\d{6}$/.test(code) ? code : "");
  // Anything but six digits is hashed as "" (no stored code is), so a malformed code costs the same as a wrong one.
  return constantTimeEqual(candidate, storedHash);
}

interface SealedContent {
  /** The attempt (a hash of its token, as the page knows it) and the member it was shown to. */
  subject: string;
  memberId: string;
  code: string;
}

/** The cookie value: "v1." + base64url(nonce ‖ ciphertext ‖ tag), with the subject and member as associated data. */
export async function sealConfirmationCode(content: SealedContent): Promise<string> {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", await derivedKey(SEAL_PURPOSE), nonce);
  cipher.setAAD(Buffer.from(`${content.subject}\u0000${content.memberId}`, "utf8"));
  const sealed = Buffer.concat([cipher.update(content.code, "utf8"), cipher.final()]);
  return `v1.${Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString("base64url")}`;
}

/** The code in a cookie value, when it was sealed for this attempt and member; null otherwise (never throws). */
export async function openConfirmationCode(value: string | undefined, subject: string, memberId: string): Promise<string | null> {
  if (!value || value.length > 200 || !value.startsWith("v1.")) return null;
  const bytes = Buffer.from(value.slice(3), "base64url");
  if (bytes.length !== 12 + CONFIRMATION_CODE_DIGITS + 16) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", await derivedKey(SEAL_PURPOSE), bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(`${subject}\u0000${memberId}`, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    const code = Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString("utf8");
    return /^\d{6}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}
