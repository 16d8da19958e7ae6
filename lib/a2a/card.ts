// The A2A 0.3.0 agent card, derived from the tool registry: one skill per community tool.
import type { AgentCard, AgentSkill } from "@a2a-js/sdk";
import { absoluteUrl, getConfig } from "@/lib/config";
import { jsonReply, type ApiReply } from "@/lib/http/api";
import { COMMUNITY_TOOLS, type ToolDefinition } from "@/lib/tools";

export const A2A_PROTOCOL_VERSION = "0.3.0";
export const AGENT_VERSION = "1.0.0";

/** Text forms of a message/send request (CONTRACT.md §9); register_agent needs a data part. */
export const TEXT_FORMS: Readonly<Record<string, string | null>> = {
  lookup_member: "name_or_slug",
  get_community_stats: null,
  verify_certificate: "certificate_id",
};

function skillExamples(tool: ToolDefinition): string[] {
  const examples = tool.examples.map((example) => example.prompt);
  for (const example of tool.examples) {
    examples.push(JSON.stringify({ skill: tool.name, input: example.input }));
    if (tool.name in TEXT_FORMS) {
      const field = TEXT_FORMS[tool.name];
      const argument = field ? example.input[field] : undefined;
      examples.push(typeof argument === "string" ? `${tool.name} ${argument}` : tool.name);
    }
  }
  return [...new Set(examples)];
}

function skill(tool: ToolDefinition): AgentSkill {
  return {
    id: tool.name,
    name: tool.title,
    description: `${tool.description} Over A2A, send a message whose data part is {"skill": "${tool.name}", "input": {…}}.`,
    tags: tool.tags,
    examples: skillExamples(tool),
    inputModes: ["application/json", "text/plain"],
    outputModes: ["application/json"],
  };
}

export function buildAgentCard(): AgentCard {
  const base = getConfig().baseUrl;
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: "Agent Gate community agent",
    description:
      'Deterministic agent of the Agent Gate community, with no model behind it: it looks up one public member by exact name or slug, reports the member count, verifies certificates live and pre-registers agent names (only with the user\'s explicit authorization). Send message/send with a data part {"skill", "input"}; each call returns a completed task whose artifact holds the result as a data part.',
    url: absoluteUrl("/a2a"),
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url: absoluteUrl("/a2a"), transport: "JSONRPC" }],
    version: AGENT_VERSION,
    provider: { organization: "Agent Gate", url: base },
    documentationUrl: absoluteUrl("/docs/a2a"),
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json"],
    skills: COMMUNITY_TOOLS.map(skill),
    supportsAuthenticatedExtendedCard: false,
  };
}

/** GET /.well-known/agent-card.json and /.well-known/agent: the same body, readable from any origin. */
export function agentCardReply(): ApiReply {
  return jsonReply(buildAgentCard(), { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" });
}
