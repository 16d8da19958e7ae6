// The token endpoint's error descriptions (CONTRACT.md §5), in one place: the endpoint answers with them and the
// contract simulator (lib/sandbox) shows the same text, so what an agent sees in the sandbox is what it will get.
import type { ErrorCode } from "@/lib/http/errors";

export const TOKEN_ERROR_DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  invalid_grant: "The claim or assertion is invalid, expired, revoked or unusable; begin a new registration.",
  authorization_pending: "The account owner has not decided yet; wait at least the interval, then poll again.",
  access_denied: "The account owner denied the delegation; stop.",
  expired_token: "The ten-minute claim attempt expired; refresh it via POST /agent/identity/claim with the outer claim token.",
  invalid_target: "The resource must be exactly the protected resource of this service.",
  confirmation_required:
    "The account owner approved, and the approval page showed them a 6-digit confirmation code: ask them for it, then poll again (at the interval) with confirmation_code.",
};
