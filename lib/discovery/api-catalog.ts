// RFC 9727 api-catalog as an RFC 9264 linkset: one context for the catalog (item links to each API) and one
// per API with its description (service-desc), documentation (service-doc) and metadata (service-meta).
import { getConfig } from "@/lib/config";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";

export const API_CATALOG_CONTENT_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

interface Link {
  href: string;
  type?: string;
  title?: string;
}
type LinkContext = { anchor: string } & Record<string, Link[] | string>;

export function apiCatalog(): { linkset: LinkContext[] } {
  const base = getConfig().baseUrl;
  const html = (path: string, title: string): Link => ({ href: `${base}${path}`, type: "text/html", title });
  const apis: LinkContext[] = [
    {
      anchor: `${base}/api`,
      "service-desc": [{ href: `${base}/openapi.json`, type: "application/vnd.oai.openapi+json;version=3.1", title: "OpenAPI 3.1 description of the REST API" }],
      "service-doc": [html("/docs/own-account-api", "Own-account API"), html("/docs/batch", "Batch API"), html("/docs/ask", "/ask"), html("/docs/simulator", "Simulator")],
      ...(isAuthDiscoveryPublic()
        ? {
            "service-meta": [
              { href: `${base}/.well-known/oauth-protected-resource/api`, type: "application/json", title: "OAuth protected resource metadata (RFC 9728)" },
              { href: `${base}/.well-known/oauth-authorization-server`, type: "application/json", title: "OAuth authorization server metadata (RFC 8414)" },
            ],
          }
        : {}),
    },
    {
      anchor: `${base}/mcp`,
      "service-desc": [{ href: `${base}/.well-known/mcp`, type: "application/mcp-server-card+json", title: "MCP server card of the community tool server" }],
      "service-doc": [html("/docs/mcp-server", "MCP tool server")],
    },
    {
      anchor: `${base}/mcp/docs`,
      "service-desc": [{ href: `${base}/.well-known/mcp-docs/server-card.json`, type: "application/mcp-server-card+json", title: "MCP server card of the documentation server" }],
      "service-doc": [html("/docs/docs-server", "MCP documentation server")],
    },
    {
      anchor: `${base}/a2a`,
      "service-desc": [{ href: `${base}/.well-known/agent-card.json`, type: "application/json", title: "A2A agent card (A2A 1.0 and 0.3.0 JSON-RPC interfaces, signed)" }],
      "service-doc": [html("/docs/a2a", "A2A endpoint (1.0 and 0.3.0)")],
    },
  ];
  const catalog: LinkContext = {
    anchor: `${base}/.well-known/api-catalog`,
    item: apis.map((api) => ({ href: api.anchor })),
    "service-doc": [html("/docs", "Documentation")],
    describedby: [{ href: `${base}/.well-known/agent-skills/index.json`, type: "application/json", title: "Agent skills index" }],
  };
  return { linkset: [catalog, ...apis] };
}

/** The Link header that points to the catalog (HEAD of the catalog, and the home page). */
export function apiCatalogLinkHeader(): string {
  return `<${getConfig().baseUrl}/.well-known/api-catalog>; rel="api-catalog"`;
}
