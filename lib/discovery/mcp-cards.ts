// MCP server cards (draft SEP-2127, STANDARDS.md §11): registry server.json fields (name, version, title,
// description, websiteUrl, remotes) naming the endpoint and transport, each remote with the MCP revisions it
// serves (`supportedProtocolVersions`: 2026-07-28 and the 2025 ones). Served at the draft's default
// `<endpoint>/server-card` and at the older well-known paths. The newest draft lists no tools; older drafts
// did, and an advisory `tools` summary costs clients nothing (unknown members are ignored), so each card
// names its tools too, derived from the same definitions the servers register.
import { getConfig } from "@/lib/config";
import { DOCS_SERVER_NAME, DOCS_SERVER_VERSION, DOCS_TOOL_SUMMARIES } from "@/lib/mcp/docs";
import { COMMUNITY_SERVER_NAME, COMMUNITY_SERVER_VERSION } from "@/lib/mcp/community";
import { SERVED_MCP_REVISIONS } from "@/lib/mcp/http";
import { COMMUNITY_TOOLS } from "@/lib/tools";

export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";
export const SERVER_CARD_CONTENT_TYPE = "application/mcp-server-card+json";

export interface ToolSummary {
  name: string;
  title: string;
  description: string;
  annotations: Record<string, boolean | string>;
}

/** Reverse-DNS namespace from BASE_URL's host, e.g. gate.example.com → com.example.gate. */
function namespace(): string {
  return new URL(getConfig().baseUrl).hostname.split(".").reverse().join(".");
}

interface CardInput {
  id: string;
  serverName: string;
  version: string;
  title: string;
  description: string;
  path: string;
  docsPath: string;
  tools: ToolSummary[];
  capabilities: Record<string, Record<string, boolean>>;
}

/** Issue 44: signed requests are accepted (and counted under the verified agent's origin). */
const SIGNATURES_ACCEPTED = "Requests may be signed with HTTP Message Signatures (Web Bot Auth): a verified agent gets a budget of its own; see /docs/signing-agents.";

function serverCard(input: CardInput) {
  const base = getConfig().baseUrl;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${namespace()}/${input.id}`,
    version: input.version,
    title: input.title,
    description: `${input.description} ${SIGNATURES_ACCEPTED}`,
    websiteUrl: `${base}${input.docsPath}`,
    remotes: [{ type: "streamable-http", url: `${base}${input.path}`, supportedProtocolVersions: [...SERVED_MCP_REVISIONS] }],
    serverInfo: { name: input.serverName, version: input.version },
    capabilities: input.capabilities,
    authentication: { required: false },
    tools: input.tools,
  };
}

export function communityServerCard() {
  return serverCard({
    id: "community-tools",
    serverName: COMMUNITY_SERVER_NAME,
    version: COMMUNITY_SERVER_VERSION,
    title: "Agent Gate community tools",
    description: "Anonymous MCP tools of the community: exact member lookup, the member count, live certificate verification and non-binding agent-name pre-registration.",
    path: "/mcp",
    docsPath: "/docs/mcp-server",
    tools: COMMUNITY_TOOLS.map((tool) => ({ name: tool.name, title: tool.title, description: tool.description, annotations: { ...tool.annotations } })),
    capabilities: { tools: { listChanged: false } },
  });
}

export function docsServerCard() {
  return serverCard({
    id: "docs",
    serverName: DOCS_SERVER_NAME,
    version: DOCS_SERVER_VERSION,
    title: "Agent Gate documentation",
    description: "Read-only MCP server over the published documentation: search_docs and get_doc, and every document as a text/markdown resource.",
    path: "/mcp/docs",
    docsPath: "/docs/docs-server",
    tools: DOCS_TOOL_SUMMARIES,
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false }, completions: {} },
  });
}

/** The draft's domain catalog (/.well-known/mcp/catalog.json): where each server card is. */
export function mcpCatalog() {
  const base = getConfig().baseUrl;
  return {
    specVersion: "draft",
    entries: [
      {
        identifier: `urn:air:${new URL(base).hostname}:community-tools`,
        displayName: "Agent Gate community tools",
        type: SERVER_CARD_CONTENT_TYPE,
        url: `${base}/.well-known/mcp`,
        supportedProtocolVersions: [...SERVED_MCP_REVISIONS],
      },
      {
        identifier: `urn:air:${new URL(base).hostname}:docs`,
        displayName: "Agent Gate documentation",
        type: SERVER_CARD_CONTENT_TYPE,
        url: `${base}/.well-known/mcp-docs/server-card.json`,
        supportedProtocolVersions: [...SERVED_MCP_REVISIONS],
      },
    ],
  };
}
