import { getConfig } from "@/lib/config";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";

/** The REST API's root document: links to its description, documentation and (public mode) metadata. */
export function apiRoot() {
  const base = getConfig().baseUrl;
  return {
    name: "Agent Gate REST API",
    openapi: `${base}/openapi.json`,
    documentation: `${base}/docs`,
    api_catalog: `${base}/.well-known/api-catalog`,
    ...(isAuthDiscoveryPublic() ? { resource_metadata: `${base}/.well-known/oauth-protected-resource/api` } : {}),
  };
}
