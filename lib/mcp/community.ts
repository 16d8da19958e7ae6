// The anonymous community tool server at /mcp: exactly the four registry tools, statelessly, with
// structuredContent plus a JSON text rendering for clients that only read text.
import { McpServer } from "@modelcontextprotocol/server";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { publicCaller } from "@/lib/agent-identity";
import { callerKey } from "@/lib/http/client-ip";
import { mcpToolBudget } from "@/lib/rate-limit/json-rpc";
import { COMMUNITY_TOOLS, toolBudgetOf, toolFailureMessage, type ToolContext } from "@/lib/tools";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { traceToolCall, tracingOn } from "@/lib/tracing";
import { serveMcp, statelessServerOptions, withCachedJsonSchema, type McpReach } from "./http";

export const COMMUNITY_SERVER_NAME = "agent-gate-community";
export const COMMUNITY_SERVER_VERSION = "1.0.0";

const INSTRUCTIONS = [
  "Anonymous, public tools of the Agent Gate community. No credential is needed and any token sent is ignored.",
  "lookup_member finds one public member by exact display name or slug; get_community_stats gives the member count;",
  "verify_certificate checks a certificate id live; register_agent pre-registers an agent name and may be called only after",
  "the user's explicit authorization in the current turn.",
].join(" ");

const SERVER_OPTIONS = statelessServerOptions(INSTRUCTIONS);

/**
 * The community server for one request. A tools/call naming one of the tools gets a server holding that tool
 * alone: registering all four in every stateless call was a quarter of what a call promoted to the old heap
 * (bench/README.md). Anything else, including a call naming no known tool, gets all four.
 */
export function buildCommunityMcpServer(context: ToolContext, reach: McpReach = {}): McpServer {
  const server = new McpServer({ name: COMMUNITY_SERVER_NAME, title: "Agent Gate community tools", version: COMMUNITY_SERVER_VERSION }, SERVER_OPTIONS);
  const called = COMMUNITY_TOOLS.find((tool) => tool.name === reach.toolName);
  for (const tool of called ? [called] : COMMUNITY_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: withCachedJsonSchema(tool.inputSchema),
        outputSchema: withCachedJsonSchema(tool.outputSchema),
        annotations: { title: tool.title, ...tool.annotations },
      },
      // The SDK has validated the arguments against inputSchema. A failure is a tool error in our own words: the
      // SDK would otherwise pass the exception's text on (a driver's message can name the database's host and port).
      async (args): Promise<CallToolResult> => {
        try {
          // Traces on: the call is a span of its own (lib/tracing); off, no closure is made.
          const output = tracingOn()
            ? await traceToolCall(tool.name, async () => tool.outputSchema.parse(await tool.handler(args, context)))
            : tool.outputSchema.parse(await tool.handler(args, context));
          return { structuredContent: output, content: [{ type: "text", text: JSON.stringify(output) }] };
        } catch (error) {
          return { isError: true, content: [{ type: "text", text: toolFailureMessage(tool.name, error) }] };
        }
      },
    );
  }
  return server;
}

const lookupBudget = mcpToolBudget(toolBudgetOf);

/** POST /mcp. */
export async function serveCommunityMcp(request: ApiRequest, clock: Clock = systemClock): Promise<ApiReply> {
  const context: ToolContext = { clock, clientIp: callerKey(request.headers) };
  const found = publicCaller(request, context.clientIp, clock);
  const caller = found instanceof Promise ? await found : found;
  return serveMcp(request, (reach) => buildCommunityMcpServer(context, reach), { budget: "mcp", caller, extraBudgetOf: lookupBudget });
}
