// The shape of a community tool: defined once, served by MCP (/mcp), A2A (/a2a) and the agent card.
import type { z } from "zod";
import type { Clock } from "@/lib/clock";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { TOOL_FAILED_MESSAGE, TOOL_UNAVAILABLE_MESSAGE } from "@/lib/http/errors";
import { errorLog } from "@/lib/observability/log";

/** What a handler may know about the call: the time source and the caller's IP (for per-IP limits). */
export interface ToolContext {
  clock: Clock;
  clientIp: string;
}

/** MCP tool annotations (hints); every one is set explicitly so none falls back to a misleading default. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolExample {
  /** One sentence a person or agent would say, for the agent card's skill examples. */
  prompt: string;
  input: Record<string, unknown>;
}

export interface ToolDefinition<In extends z.ZodObject = z.ZodObject, Out extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Written for an agent: what the tool does, what it never does, what to pass. */
  description: string;
  inputSchema: In;
  outputSchema: Out;
  annotations: ToolHints;
  /** Agent-card tags. */
  tags: string[];
  examples: ToolExample[];
  // Method syntax on purpose: a concrete tool stays assignable to the registry's ToolDefinition.
  handler(input: z.output<In>, context: ToolContext): Promise<z.output<Out>>;
}

/** A refusal the caller can act on (rate limit…): shown to the agent as a tool error, never a 500. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * What a caller is told when a tool call fails, in our own words (MCP tool error, failed A2A task): a ToolError
 * keeps its message (written for the caller), an unreachable database is "temporarily unavailable", anything
 * else "the service failed". The detail goes to the log only (one line, never the input).
 */
export function toolFailureMessage(toolName: string, error: unknown): string {
  if (error instanceof ToolError) return error.message;
  errorLog(error, `tool ${toolName}`);
  return isDatabaseUnavailable(error) ? TOOL_UNAVAILABLE_MESSAGE : TOOL_FAILED_MESSAGE;
}

/** Typed helper so each module keeps its precise input and output types. */
export function defineTool<In extends z.ZodObject, Out extends z.ZodObject>(tool: ToolDefinition<In, Out>): ToolDefinition<In, Out> {
  return tool;
}
