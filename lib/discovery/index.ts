// Authorization discovery documents (SPEC.md "Discovery", CONTRACT.md §7): every URL from BASE_URL, never
// from the Host header; RELEASE_MODE=private turns the authorization documents into the JSON 404.
import { absoluteUrl, getConfig } from "@/lib/config";
import { jsonReply, type ApiReply } from "@/lib/http/api";
import { methodNotAllowedReply, notFoundReply } from "@/lib/http/errors";
import { publicJwks } from "@/lib/keys";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";
import { CLAIM_GRANT_TYPE, DPOP_ALGORITHMS, JWT_BEARER_GRANT_TYPE, SCOPES } from "@/lib/schemas/service-auth";
import { protectedResource } from "@/lib/tokens";

/** Where the service_auth walkthrough is published. */
const AUTH_DOCUMENTATION_PATH = "/auth.md";

export function protectedResourceMetadata() {
  return {
    resource: protectedResource(),
    authorization_servers: [getConfig().baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Agent Gate own-account API",
    resource_documentation: absoluteUrl(AUTH_DOCUMENTATION_PATH),
    // RFC 9728 §2 (issue 52): DPoP-bound tokens are accepted with proofs of these algorithms; Bearer tokens remain.
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    dpop_bound_access_tokens_required: false,
  };
}

export function authorizationServerMetadata() {
  const base = getConfig().baseUrl;
  return {
    issuer: base,
    token_endpoint: absoluteUrl("/oauth2/token"),
    revocation_endpoint: absoluteUrl("/oauth2/revoke"),
    jwks_uri: absoluteUrl("/.well-known/jwks.json"),
    grant_types_supported: [CLAIM_GRANT_TYPE, JWT_BEARER_GRANT_TYPE],
    scopes_supported: [...SCOPES],
    token_endpoint_auth_methods_supported: ["none"],
    response_types_supported: [],
    service_documentation: absoluteUrl(AUTH_DOCUMENTATION_PATH),
    agent_identity_endpoint: absoluteUrl("/agent/identity"),
    // RFC 9449 §5.1 (issue 52): both grants bind a token to the key of a DPoP proof of these algorithms.
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
  };
}

/** The credential-free surface at the origin: it takes no tokens and supports no scopes. */
export function credentialFreeResourceMetadata() {
  return {
    resource: getConfig().baseUrl,
    scopes_supported: [],
    bearer_methods_supported: [],
    resource_name: "Agent Gate public-read surface (no credential)",
    // Not authorization discovery, so it stays published in private mode: it must not point at /auth.md.
    resource_documentation: absoluteUrl("/docs/getting-started"),
  };
}

const DISCOVERY_HEADERS = { "cache-control": "no-store", "access-control-allow-origin": "*" } as const;

export type DiscoveryDocument = "protected-resource" | "authorization-server" | "jwks" | "credential-free";

/** Documents hidden by RELEASE_MODE=private; the credential-free surface is not authorization discovery. */
const HIDDEN_WHEN_PRIVATE: ReadonlySet<DiscoveryDocument> = new Set(["protected-resource", "authorization-server", "jwks"]);

function visible(document: DiscoveryDocument): boolean {
  return isAuthDiscoveryPublic() || !HIDDEN_WHEN_PRIVATE.has(document);
}

async function documentBody(document: DiscoveryDocument): Promise<unknown> {
  switch (document) {
    case "protected-resource":
      return protectedResourceMetadata();
    case "authorization-server":
      return authorizationServerMetadata();
    case "jwks":
      return publicJwks();
    case "credential-free":
      return credentialFreeResourceMetadata();
  }
}

/** GET/HEAD of a discovery document. */
export async function serveDiscovery(document: DiscoveryDocument): Promise<ApiReply> {
  if (!visible(document)) return notFoundReply("Authorization discovery is not published in this release mode.");
  return jsonReply(await documentBody(document), DISCOVERY_HEADERS);
}

/** Other methods: 405 where the document exists, the JSON 404 where the release mode hides it. */
export function discoveryMethodNotAllowed(document: DiscoveryDocument): ApiReply {
  if (!visible(document)) return notFoundReply("Authorization discovery is not published in this release mode.");
  return methodNotAllowedReply(["GET", "HEAD"], { "Access-Control-Allow-Origin": "*" });
}
