// The agent card, derived from the tool registry (one skill per community tool). One document serves both
// protocol generations: the A2A 0.3.0 fields (`protocolVersion`, `url`, `preferredTransport`, …) that 0.3 clients
// read, and A2A 1.0's `supportedInterfaces`, where 1.x clients pick the 1.0 JSON-RPC interface and 0.3-compatible
// clients the 0.3 one (the two field sets are disjoint).
//
// Signed (A2A 1.0 §8.4): a JWS over the RFC 8785 canonical card, made by the SDK's generateAgentCardSignature
// with the service's Ed25519 signing key (lib/keys), `kid` and `jku` as in /.well-known/jwks.json. The SDK
// canonicalizes the card as the 1.0 schema reads it, so the 0.3-only fields are not covered by the signature.
// Private release mode (CONTRACT.md §7) publishes no JWKS, so a signature there could not be checked by anyone:
// the card is served unsigned, and names no key.
import { AgentCard as SdkAgentCard, generateAgentCardSignature, type AgentCard as V1AgentCard } from "@a2a-js/sdk";
import { absoluteUrl, getConfig } from "@/lib/config";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { jsonReply, type ApiReply } from "@/lib/http/api";
import { getKeySet } from "@/lib/keys";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";
import { COMMUNITY_TOOLS, type ToolDefinition } from "@/lib/tools";

export const A2A_PROTOCOL_VERSION = "0.3.0";
/** The `protocolVersion` values of the card's two JSON-RPC interfaces (Major.Minor, as A2A-Version carries them). */
export const A2A_INTERFACE_VERSIONS = { current: "1.0", legacy: "0.3" } as const;
export const AGENT_VERSION = "1.0.0";

/** Text forms of a message/send or SendMessage request (CONTRACT.md §9); register_agent needs a data part. */
export const TEXT_FORMS: Readonly<Record<string, string | null>> = {
  lookup_member: "name_or_slug",
  get_community_stats: null,
  verify_certificate: "certificate_id",
};

export interface AgentSkillJson {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  inputModes: string[];
  outputModes: string[];
}

export interface AgentInterfaceJson {
  url: string;
  protocolBinding: "JSONRPC";
  protocolVersion: string;
}

export interface AgentCardSignatureJson {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

/** The card as served: A2A 0.3.0's AgentCard plus 1.0's `supportedInterfaces` and `signatures`. */
export interface AgentCardJson {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport: "JSONRPC";
  additionalInterfaces: { url: string; transport: "JSONRPC" }[];
  supportedInterfaces: AgentInterfaceJson[];
  version: string;
  provider: { organization: string; url: string };
  documentationUrl: string;
  capabilities: { streaming: boolean; pushNotifications: boolean; stateTransitionHistory: boolean; extendedAgentCard: boolean };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkillJson[];
  supportsAuthenticatedExtendedCard: boolean;
  signatures?: AgentCardSignatureJson[];
}

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

function skill(tool: ToolDefinition): AgentSkillJson {
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

/** The unsigned card. */
export function buildAgentCard(): AgentCardJson {
  const base = getConfig().baseUrl;
  const endpoint = absoluteUrl("/a2a");
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: "Agent Gate community agent",
    description:
      'Deterministic agent of the Agent Gate community, with no model behind it: it looks up one public member by exact name or slug, reports the member count, verifies certificates live and pre-registers agent names (only with the user\'s explicit authorization). Send message/send (A2A 0.3) or SendMessage (A2A 1.0, header A2A-Version: 1.0) with a data part {"skill", "input"}; each call returns a completed task whose artifact holds the result as a data part. A text part may instead ask in a short sentence ("how many members are there?", "is AG-2025-0001 valid?", "look up Ada Lovelace"): a sentence that matches one skill runs it, any other gets a completed task whose status message lists the skills (documentationUrl has the patterns). Requests may be signed with HTTP Message Signatures (Web Bot Auth, /docs/signing-agents): a verified agent gets a budget of its own.',
    url: endpoint,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url: endpoint, transport: "JSONRPC" }],
    supportedInterfaces: [
      { url: endpoint, protocolBinding: "JSONRPC", protocolVersion: A2A_INTERFACE_VERSIONS.current },
      { url: endpoint, protocolBinding: "JSONRPC", protocolVersion: A2A_INTERFACE_VERSIONS.legacy },
    ],
    version: AGENT_VERSION,
    provider: { organization: "Agent Gate", url: base },
    documentationUrl: absoluteUrl("/docs/a2a"),
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false, extendedAgentCard: false },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json"],
    skills: COMMUNITY_TOOLS.map(skill),
    supportsAuthenticatedExtendedCard: false,
  };
}

let sdkCard: { base: string; card: V1AgentCard } | undefined;

/** The card as the SDK's request handler reads it (its 1.0 objects); built once per base URL. */
export function sdkAgentCard(): V1AgentCard {
  const base = getConfig().baseUrl;
  if (sdkCard?.base !== base) sdkCard = { base, card: SdkAgentCard.fromJSON(buildAgentCard()) };
  return sdkCard.card;
}

let signed: { key: string; card: Promise<AgentCardJson> } | undefined;

async function sign(card: AgentCardJson): Promise<AgentCardJson> {
  const { active } = await getKeySet();
  const signer = generateAgentCardSignature(active.privateKey, { alg: "EdDSA", typ: "JOSE", kid: active.kid, jku: absoluteUrl("/.well-known/jwks.json") });
  // The SDK's type is the 1.0 card; ours is that card plus the 0.3 fields, which its canonicalization leaves out.
  const { signatures } = await signer(card as unknown as V1AgentCard);
  return { ...card, signatures: signatures.map((s) => ({ protected: s.protected, signature: s.signature, ...(s.header ? { header: s.header } : {}) })) };
}

/** The card as served: signed in public release mode (once per key and base URL), unsigned in private mode. */
export async function servedAgentCard(): Promise<AgentCardJson> {
  const card = buildAgentCard();
  if (!isAuthDiscoveryPublic()) return card;
  const { active } = await getKeySet();
  const key = `${getConfig().baseUrl} ${active.kid}`;
  if (signed?.key !== key) {
    const attempt = { key, card: sign(card) };
    signed = attempt;
    attempt.card.catch(() => {
      if (signed === attempt) signed = undefined;
    });
  }
  return signed.card;
}

const CARD_HEADERS = { "access-control-allow-origin": "*", "cache-control": "public, max-age=300" } as const;

/** GET /.well-known/agent-card.json and /.well-known/agent: the same body, readable from any origin. */
export async function agentCardReply(): Promise<ApiReply> {
  try {
    return jsonReply(await servedAgentCard(), CARD_HEADERS);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    // The locally generated key lives in the database: without it the card is still served, unsigned and not cached.
    return jsonReply(buildAgentCard(), { ...CARD_HEADERS, "cache-control": "no-store" });
  }
}
