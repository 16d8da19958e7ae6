// The operator endpoints' credential: `Authorization: Bearer <secret>` (CRON_SECRET, METRICS_TOKEN),
// compared in constant time; a missing secret never matches.
import { constantTimeEqual } from "@/lib/crypto/secrets";
import type { ApiReply } from "@/lib/http/api";
import { errorReply } from "@/lib/http/errors";

/** Whether the Authorization header carries exactly `Bearer <secret>`. */
export function bearerMatches(authorization: string | null | undefined, secret: string | undefined): boolean {
  if (!secret || typeof authorization !== "string") return false;
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(authorization.trim());
  return match !== null && constantTimeEqual(match[1]!, secret);
}

/** 401 for a wrong or missing operator credential (the same answer for both). */
export function operatorUnauthorized(): ApiReply {
  return errorReply("invalid_token", "This operator endpoint needs its bearer secret.", {
    headers: { "WWW-Authenticate": 'Bearer realm="operations"', "Cache-Control": "no-store" },
  });
}
