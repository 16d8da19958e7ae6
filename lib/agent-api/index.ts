// The protected own-account routes under /api/v1/agent/ (SPEC.md "Authentication" 2 and 6, CONTRACT.md §6):
// a Bearer token only from the Authorization header (never query, body or cookie), the route's scope,
// no query parameters and no body; every refusal is a challenge from lib/http/errors.ts.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { jsonReply, queryOf, type ApiReply, type ApiRequest, type HeaderReader } from "@/lib/http/api";
import { challengeReply } from "@/lib/http/errors";
import { verifyAccessToken, type VerifiedAccessToken } from "@/lib/tokens";
import type { OwnAccountResponse, OwnRegistrationsResponse, Scope } from "@/lib/schemas/service-auth";

export type OwnAccountRoute = "account" | "registrations";

export const ROUTE_SCOPE: Record<OwnAccountRoute, Scope> = {
  account: "agent.account.read",
  registrations: "agent.registrations.read",
};

/** RFC 6750 §2.1: "Bearer" 1*SP b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

type Credential = { kind: "none" } | { kind: "malformed" } | { kind: "bearer"; token: string };

function credentialOf(headers: HeaderReader): Credential {
  const value = headers.get("authorization");
  if (value === null || value.trim() === "") return { kind: "none" };
  // Another scheme (Basic, DPoP…) is an unsupported method: answered like no credential (RFC 6750 §3.1).
  if (!/^bearer(\s|$)/i.test(value)) return { kind: "none" };
  const match = BEARER.exec(value);
  return match ? { kind: "bearer", token: match[1]! } : { kind: "malformed" };
}

/**
 * A query parameter or any body byte makes the request malformed (CONTRACT.md §6). A bare "?" carries no
 * parameter: Next drops it from the URL before the route file sees it, so the node:http front ignores it too.
 */
async function isMalformed(request: ApiRequest): Promise<boolean> {
  if (queryOf(request.target) !== "") return true;
  const length = request.headers.get("content-length");
  if (length !== null && length.trim() !== "0") return true;
  if (request.headers.get("transfer-encoding") !== null) return true;
  const body = await request.readBody(0);
  return !body.ok || body.value.length > 0;
}

function accountBody(grant: VerifiedAccessToken): OwnAccountResponse {
  return {
    account_id: grant.memberId,
    email: grant.memberEmail,
    email_verified: true,
    authorization: {
      registration_id: grant.registrationId,
      registration_type: "service_auth",
      client_name: grant.clientName,
      scope: grant.scope,
      resource: grant.resource,
      token_expires_at: grant.expiresAt.toISOString(),
    },
  };
}

function registrationsBody(grant: VerifiedAccessToken): OwnRegistrationsResponse {
  // Zero or one item: the registration the token belongs to.
  return {
    registrations: [
      { id: grant.registrationId, registration_type: "service_auth", status: grant.registrationStatus as OwnRegistrationsResponse["registrations"][number]["status"] },
    ],
  };
}

/** GET or HEAD of an own-account route. */
export async function serveOwnAccountRoute(request: ApiRequest, route: OwnAccountRoute, clock: Clock = systemClock): Promise<ApiReply> {
  if (await isMalformed(request)) return challengeReply({ kind: "invalid_request" });
  const credential = credentialOf(request.headers);
  if (credential.kind === "none") return challengeReply({ kind: "no_credential" });
  if (credential.kind === "malformed") return challengeReply({ kind: "invalid_request" });
  const grant = await verifyAccessToken(credential.token, clock);
  if (!grant) return challengeReply({ kind: "invalid_token" });
  const scope = ROUTE_SCOPE[route];
  if (!grant.scopes.includes(scope)) return challengeReply({ kind: "insufficient_scope", scope });
  const body = route === "account" ? accountBody(grant) : registrationsBody(grant);
  return jsonReply(body, { "cache-control": "no-store", vary: "Authorization" }, 200, request.method === "HEAD");
}
