// POST /api/v1/batch (SPEC.md "Limits", CONTRACT.md §9): a bounded, anonymous, read-only batch over the docs
// corpus. Envelope errors refuse the whole batch before anything runs; item errors fail only that item;
// items run in order until the deadline, after which no item starts.
import { publicCallerKey } from "@/lib/agent-identity";
import type { Clock } from "@/lib/clock";
import { systemClock } from "@/lib/clock";
import { askDocs, listContent } from "@/lib/docs/ask";
import { getCorpus } from "@/lib/docs/corpus";
import { readJsonObject } from "@/lib/http/body";
import { callerKey } from "@/lib/http/client-ip";
import { jsonReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { errorBody, errorReply, payloadTooLargeReply, rateLimitedReply, type ErrorBody } from "@/lib/http/errors";
import { errorLog } from "@/lib/observability/log";
import { budgetRule, hitRateLimit, rateLimitHeaders, type RateLimitRule } from "@/lib/rate-limit";
import {
  BATCH_DEADLINE_MS,
  BATCH_MAX_BYTES,
  BATCH_MAX_ITEMS,
  batchRequestSchema,
  contentListArgumentsSchema,
  docsAskArgumentsSchema,
  type BatchItem,
  type BatchItemResult,
  type BatchResponse,
  type BatchRequest,
} from "@/lib/schemas/public-read";
import { describeIssue } from "@/lib/schemas/issues";

export const BATCH_RATE_LIMIT: RateLimitRule = budgetRule("batch");

export type OperationOutcome = { status: "ok"; result: Extract<BatchItemResult, { status: "ok" }>["result"] } | { status: "error"; error: ErrorBody };
export type OperationHandler = (args: unknown) => OperationOutcome | Promise<OperationOutcome>;

const badArguments = (message: string): OperationOutcome => ({ status: "error", error: errorBody("invalid_request", message) });

export const DEFAULT_OPERATIONS: Record<string, OperationHandler> = {
  "content.list": (args) => {
    const parsed = contentListArgumentsSchema.safeParse(args ?? {});
    if (!parsed.success) return badArguments(describeIssue(parsed.error, "arguments"));
    const kinds = getCorpus().kinds;
    if (parsed.data.type !== undefined && !kinds.includes(parsed.data.type)) return badArguments(`arguments.type must be one of the content kinds: ${kinds.join(", ")}.`);
    return { status: "ok", result: listContent(parsed.data) };
  },
  "docs.ask": (args) => {
    const parsed = docsAskArgumentsSchema.safeParse(args ?? {});
    if (!parsed.success) return badArguments(describeIssue(parsed.error, "arguments"));
    return { status: "ok", result: askDocs(parsed.data.query, parsed.data.top_k) };
  },
};

export interface BatchRunOptions {
  /** Milliseconds from the start of validated execution after which no item starts (default 10 000). */
  deadlineMs?: number;
  clock?: Clock;
  operations?: Record<string, OperationHandler>;
}

/** Runs validated items in order; an item not started by the deadline is skipped, one already running finishes. */
export async function runBatch(items: BatchItem[], options: BatchRunOptions = {}): Promise<BatchResponse> {
  const { deadlineMs = BATCH_DEADLINE_MS, clock = systemClock, operations = DEFAULT_OPERATIONS } = options;
  const started = clock.now().getTime();
  const results: BatchItemResult[] = [];
  for (const item of items) {
    const { id, operation } = item;
    if (clock.now().getTime() - started >= deadlineMs) {
      results.push({ id, operation, status: "skipped" });
      continue;
    }
    const handler = Object.hasOwn(operations, item.operation) ? operations[item.operation] : undefined;
    if (!handler) {
      results.push({ id, operation, status: "error", error: errorBody("invalid_request", `Unknown operation; use one of: ${Object.keys(operations).join(", ")}.`) });
      continue;
    }
    try {
      const outcome = await handler(item.arguments);
      results.push(outcome.status === "ok" ? { id, operation, status: "ok", result: outcome.result } : { id, operation, status: "error", error: outcome.error });
    } catch (error) {
      // One failing operation must not sink the others; the details stay in the log.
      errorLog(error, `batch operation ${item.operation}`);
      results.push({ id, operation, status: "error", error: errorBody("server_error", "This operation failed on the service; retry it later.") });
    }
  }
  return { results };
}

export type EnvelopeResult = { ok: true; value: BatchRequest } | { ok: false; message: string };

/** Checks the envelope (an object with 1–10 items of unique ids and no unknown members); nothing runs otherwise. */
export function parseBatchEnvelope(body: unknown): EnvelopeResult {
  const parsed = batchRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  if (issue && issue.path.length === 1 && issue.path[0] === "items" && (issue.code === "too_big" || issue.code === "too_small")) {
    return { ok: false, message: `A batch holds 1 to ${BATCH_MAX_ITEMS} items.` };
  }
  return { ok: false, message: describeIssue(parsed.error, "") };
}

const RESPONSE_HEADERS = { "access-control-allow-origin": "*", "cache-control": "no-store" } as const;

/** The whole endpoint: rate limit, body (size counted as read), envelope, then the items. */
export async function handleBatchRequest(request: ApiRequest, options: BatchRunOptions = {}): Promise<ApiReply> {
  const clock = options.clock ?? systemClock;
  const keyed = publicCallerKey(request, callerKey(request.headers), clock);
  const limit = await hitRateLimit(BATCH_RATE_LIMIT, typeof keyed === "string" ? keyed : await keyed, clock);
  const headers: Record<string, string> = { ...RESPONSE_HEADERS, ...rateLimitHeaders(limit) };
  if (!limit.allowed) return rateLimitedReply(limit.resetSeconds, headers);
  const body = await readJsonObject(request, BATCH_MAX_BYTES);
  if (!body.ok) {
    if (body.reason === "too_large") {
      const tooLarge = payloadTooLargeReply(BATCH_MAX_BYTES);
      return { ...tooLarge, headers: { ...tooLarge.headers, ...headers } };
    }
    return errorReply("invalid_request", body.message, { headers });
  }
  const envelope = parseBatchEnvelope(body.value);
  if (!envelope.ok) return errorReply("invalid_request", envelope.message, { headers });
  const result = await runBatch(envelope.value.items, { ...options, clock });
  return jsonReply(result, headers);
}
