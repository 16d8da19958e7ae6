// The registry of community tools: /mcp, /a2a and the agent card all derive from this one list.
import { z } from "zod";
import { communityStatsTool } from "./community-stats";
import { lookupMemberTool } from "./lookup-member";
import { registerAgentTool } from "./register-agent";
import type { ToolContext, ToolDefinition } from "./types";
import { ToolError } from "./types";
import { verifyCertificateTool } from "./verify-certificate";

export type { ToolContext, ToolDefinition, ToolExample, ToolHints } from "./types";
export { ToolError, toolFailureMessage } from "./types";

export const COMMUNITY_TOOLS: readonly ToolDefinition[] = [lookupMemberTool, communityStatsTool, registerAgentTool, verifyCertificateTool];

/**
 * Tools with a budget of their own on top of their surface's (lib/rate-limit/budgets.ts): exact lookups answered
 * without limit would be bulk search by enumeration. Charged per MCP tools/call and per A2A message/send alike.
 */
export const TOOL_BUDGETS: Readonly<Record<string, "lookups">> = { lookup_member: "lookups", verify_certificate: "lookups" };

/** The extra budget a call of `toolName` spends, if any. */
export function toolBudgetOf(toolName: unknown): "lookups" | undefined {
  return typeof toolName === "string" && Object.hasOwn(TOOL_BUDGETS, toolName) ? TOOL_BUDGETS[toolName] : undefined;
}

export function findTool(name: string): ToolDefinition | undefined {
  return COMMUNITY_TOOLS.find((tool) => tool.name === name);
}

/** Input that does not match a tool's input schema; the message names each problem. */
export class ToolInputError extends ToolError {
  constructor(toolName: string, error: z.ZodError) {
    const problems = error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message));
    super(`Invalid input for ${toolName}: ${problems.join("; ")}`);
    this.name = "ToolInputError";
  }
}

/** Validates raw input against the tool's schema, runs it and checks its output (A2A path; MCP validates in the SDK). */
export async function runTool(tool: ToolDefinition, rawInput: unknown, context: ToolContext): Promise<Record<string, unknown>> {
  const parsed = tool.inputSchema.safeParse(rawInput ?? {});
  if (!parsed.success) throw new ToolInputError(tool.name, parsed.error);
  const output = await tool.handler(parsed.data, context);
  return tool.outputSchema.parse(output);
}
