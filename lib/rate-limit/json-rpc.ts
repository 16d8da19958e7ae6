// Budgets and the message cap of the JSON-RPC surfaces (/mcp, /mcp/docs, /a2a), counted per message, not per
// POST: a batch of ten messages spends ten units. Checked before anything runs; a refusal runs nothing.
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import type { ApiReply } from "@/lib/http/api";
import { jsonRpcErrorReply, jsonRpcRateLimited } from "@/lib/http/errors";
import { mapMaybe, type MaybePromise } from "@/lib/shared-state";
import { chargeCaller, type BudgetCharge, type ChargedCaller, type SharedBudgetName } from "./charge";

/** At most this many JSON-RPC messages in one POST (the batch API's item cap too). */
export const MAX_MESSAGES_PER_POST = 10;

/** The first MCP revision whose Streamable HTTP transport takes one message per POST (JSON-RPC batching was removed). */
export const FIRST_MCP_REVISION_WITHOUT_BATCHES = "2025-06-18";

const INVALID_REQUEST = -32600;

type JsonRpcId = string | number | null;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The messages of a parsed body: the array's members, or the body itself. */
export function messagesOf(body: unknown): readonly unknown[] {
  return Array.isArray(body) ? body : [body];
}

/** The id to answer a refusal of the whole POST under: the single message's id, else null. */
export function refusalId(body: unknown): JsonRpcId {
  if (!isRecord(body)) return null;
  const id = body["id"];
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** The MCP revision a POST speaks: its MCP-Protocol-Version header, or the version an initialize in it asks for. */
function mcpRevision(body: unknown, protocolVersionHeader: string | null): string | null {
  if (protocolVersionHeader) return protocolVersionHeader.trim();
  for (const message of messagesOf(body)) {
    if (isRecord(message) && message["method"] === "initialize" && isRecord(message["params"])) {
      const version = message["params"]["protocolVersion"];
      if (typeof version === "string") return version;
    }
  }
  return null;
}

/**
 * Refuses an array of more than MAX_MESSAGES_PER_POST messages, and any array under an MCP revision that has
 * no batches (2025-06-18 and later: "The body of the POST request MUST be a single JSON-RPC request,
 * notification, or response"): one JSON-RPC error -32600, HTTP 400, nothing run. null: go on.
 * `protocolVersionHeader` is undefined for A2A (no revisions).
 */
export function batchRefusal(body: unknown, protocolVersionHeader?: string | null): ApiReply | null {
  if (!Array.isArray(body)) return null;
  if (body.length > MAX_MESSAGES_PER_POST) {
    return jsonRpcErrorReply(null, { code: INVALID_REQUEST, message: `Invalid Request: at most ${MAX_MESSAGES_PER_POST} JSON-RPC messages per POST; nothing was run.` }, 400);
  }
  if (protocolVersionHeader !== undefined) {
    const revision = mcpRevision(body, protocolVersionHeader);
    if (revision !== null && revision >= FIRST_MCP_REVISION_WITHOUT_BATCHES) {
      return jsonRpcErrorReply(
        null,
        { code: INVALID_REQUEST, message: `Invalid Request: MCP ${revision.slice(0, 20)} takes one JSON-RPC message per POST, not an array; nothing was run.` },
        400,
      );
    }
  }
  return null;
}

/** What one message spends beyond its surface's unit: a call of a tool with its own budget (lib/tools TOOL_BUDGETS). */
export type ExtraBudgetOf = (message: unknown) => SharedBudgetName | undefined;

/**
 * Charges a POST to its surface's budget (one unit per message, at least one per POST) and each message's
 * extra budget, all or nothing; the 429 answer (JSON-RPC -32010, Retry-After) when refused, else null.
 */
export function chargeJsonRpcPost(
  surface: SharedBudgetName,
  caller: ChargedCaller,
  body: unknown,
  extraBudgetOf?: ExtraBudgetOf,
  clock: Clock = systemClock,
): MaybePromise<ApiReply | null> {
  const messages = messagesOf(body);
  return mapMaybe(
    chargeCaller(caller, (key) => postCharges(surface, key, messages, extraBudgetOf), clock),
    ({ refused }) => (refused ? jsonRpcRateLimited(refusalId(body), refused.retryAfterSeconds) : null),
  );
}

/** A POST's charges: its surface's unit per message (at least one), and each message's extra budget. */
function postCharges(surface: SharedBudgetName, callerKey: string, messages: readonly unknown[], extraBudgetOf: ExtraBudgetOf | undefined): BudgetCharge[] {
  const charges: BudgetCharge[] = [{ budget: surface, key: callerKey, cost: Math.max(1, messages.length) }];
  if (extraBudgetOf) {
    for (const message of messages) {
      const extra = extraBudgetOf(message);
      if (extra === undefined) continue;
      const existing = charges.find((charge) => charge.budget === extra);
      if (existing) existing.cost += 1;
      else charges.push({ budget: extra, key: callerKey, cost: 1 });
    }
  }
  return charges;
}

/** The extra budget of an MCP message: a tools/call of a tool with a budget of its own. */
export function mcpToolBudget(toolBudgetOf: (toolName: unknown) => SharedBudgetName | undefined): ExtraBudgetOf {
  return (message) => {
    if (!isRecord(message) || message["method"] !== "tools/call" || !isRecord(message["params"])) return undefined;
    return toolBudgetOf(message["params"]["name"]);
  };
}
