// Request and response schemas of the anonymous public-read surfaces built on the docs corpus
// (CONTRACT.md §9): /ask, the batch and its operations, the simulator, and the docs MCP tools.
// One schema each, used by the handlers, the simulator, the tests and /openapi.json.
import { z } from "zod";
import { errorBodySchema } from "./service-auth";
import { text } from "./text";

/** Length in characters (code points), so a question of 500 emoji is 500 characters, not 1000. */
export const characterLength = (value: string): number => [...value].length;

/** Whether a string has at most `max` characters; decided from its UTF-16 length alone when that settles it. */
export const hasAtMostCharacters = (value: string, max: number): boolean => value.length <= max || (value.length <= 2 * max && characterLength(value) <= max);

export const QUESTION_MIN = 2;
export const QUESTION_MAX = 500;

/** A question: trimmed, then 2 to 500 characters (the /ask and docs.ask rule). */
export const questionSchema = text()
  .transform((v) => v.trim())
  .refine((v) => hasAtMostCharacters(v, QUESTION_MAX) && characterLength(v) >= QUESTION_MIN, `must be ${QUESTION_MIN} to ${QUESTION_MAX} characters after trimming`);

// ---- /ask and docs.ask ----

export const askAnswerSchema = z.object({ slug: z.string(), title: z.string(), url: z.string().url(), excerpt: z.string(), score: z.number() }).meta({ id: "AskAnswer" });

export const askResponseSchema = z.object({ query: z.string(), answers: z.array(askAnswerSchema) }).meta({ id: "AskResponse" });
export type AskResponse = z.infer<typeof askResponseSchema>;

// ---- content.list ----

export const CONTENT_LIST_LIMIT_MAX = 50;
export const CONTENT_LIST_LIMIT_DEFAULT = 10;
export const TOP_K_MAX = 10;
export const TOP_K_DEFAULT = 3;

export const contentKindSchema = text().regex(/^[a-z][a-z0-9-]{0,39}$/);

export const contentListArgumentsSchema = z
  .strictObject({
    query: text()
      .transform((v) => v.trim())
      .refine((v) => v.length >= 1 && hasAtMostCharacters(v, QUESTION_MAX), `must be 1 to ${QUESTION_MAX} characters after trimming`)
      .optional(),
    type: contentKindSchema.optional(),
    limit: z.number().int().min(1).max(CONTENT_LIST_LIMIT_MAX).default(CONTENT_LIST_LIMIT_DEFAULT),
  })
  .meta({ id: "ContentListArguments" });
export type ContentListArguments = z.infer<typeof contentListArgumentsSchema>;

export const contentItemSchema = z
  .object({ slug: z.string(), title: z.string(), kind: z.string(), summary: z.string(), url: z.string().url(), markdown_url: z.string().url(), updated: z.string() })
  .meta({ id: "ContentItem" });

export const contentListResultSchema = z.object({ items: z.array(contentItemSchema) }).meta({ id: "ContentListResult" });
export type ContentListResult = z.infer<typeof contentListResultSchema>;

export const docsAskArgumentsSchema = z
  .strictObject({ query: questionSchema, top_k: z.number().int().min(1).max(TOP_K_MAX).default(TOP_K_DEFAULT) })
  .meta({ id: "DocsAskArguments" });
export type DocsAskArguments = z.infer<typeof docsAskArgumentsSchema>;

// ---- POST /api/v1/batch ----

export const BATCH_MAX_ITEMS = 10;
export const BATCH_MAX_BYTES = 262144;
export const BATCH_DEADLINE_MS = 10_000;

/** The envelope of one item; the operation and its arguments are checked per item, not here. */
export const batchItemSchema = z
  .strictObject({
    id: text().min(1).max(200),
    operation: text().min(1).max(100),
    arguments: z.unknown().optional(),
  })
  .meta({ id: "BatchItem" });
export type BatchItem = z.infer<typeof batchItemSchema>;

export const batchRequestSchema = z
  .strictObject({ items: z.array(batchItemSchema).min(1).max(BATCH_MAX_ITEMS) })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.items.forEach((item, i) => {
      if (seen.has(item.id)) ctx.addIssue({ code: "custom", path: ["items", i, "id"], message: "item ids must be unique" });
      seen.add(item.id);
    });
  })
  .meta({ id: "BatchRequest" });
export type BatchRequest = z.infer<typeof batchRequestSchema>;

export const batchItemResultSchema = z
  .discriminatedUnion("status", [
    z.strictObject({ id: z.string(), operation: z.string(), status: z.literal("ok"), result: z.union([contentListResultSchema, askResponseSchema]) }),
    z.strictObject({ id: z.string(), operation: z.string(), status: z.literal("error"), error: errorBodySchema }),
    z.strictObject({ id: z.string(), operation: z.string(), status: z.literal("skipped") }),
  ])
  .meta({ id: "BatchItemResult" });
export type BatchItemResult = z.infer<typeof batchItemResultSchema>;

export const batchResponseSchema = z.object({ results: z.array(batchItemResultSchema) }).meta({ id: "BatchResponse" });
export type BatchResponse = z.infer<typeof batchResponseSchema>;

// ---- POST /api/v1/sandbox/simulate ----

export const SIMULATOR_SCENARIOS = ["agent_auth_challenge", "agent_auth_pending", "agent_auth_success", "batch_mixed_result"] as const;
export type SimulatorScenario = (typeof SIMULATOR_SCENARIOS)[number];

export const simulateRequestSchema = z.strictObject({ scenario: z.enum(SIMULATOR_SCENARIOS) }).meta({ id: "SimulateRequest" });

export const simulateResponseSchema = z
  .object({
    scenario: z.enum(SIMULATOR_SCENARIOS),
    models: z.object({ method: z.string(), path: z.string(), status: z.number().int() }),
    response: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "SimulateResponse" });
export type SimulateResponse = z.infer<typeof simulateResponseSchema>;

// ---- /mcp/docs tools ----

export const SEARCH_DOCS_LIMIT_MAX = 20;
export const SEARCH_DOCS_LIMIT_DEFAULT = 5;

export const searchDocsInputShape = {
  // Characters (code points), as /ask counts them and as JSON Schema's maxLength means them; .max() would count
  // UTF-16 units and refuse 500 emoji that /ask takes.
  query: text()
    .min(1)
    .refine((v) => hasAtMostCharacters(v, QUESTION_MAX), `must be at most ${QUESTION_MAX} characters`)
    .meta({ maxLength: QUESTION_MAX })
    .describe("What to look for, e.g. 'slow_down polling interval'."),
  limit: z.number().int().min(1).max(SEARCH_DOCS_LIMIT_MAX).optional().describe(`Most results wanted (1-${SEARCH_DOCS_LIMIT_MAX}, default ${SEARCH_DOCS_LIMIT_DEFAULT}).`),
};

export const searchDocsResultSchema = z.object({ slug: z.string(), title: z.string(), url: z.string(), snippet: z.string(), score: z.number() });

export const searchDocsOutputShape = { results: z.array(searchDocsResultSchema) };

export const getDocInputShape = { slug: text().min(1).max(200).describe("A document slug from search_docs, e.g. 'getting-started'.") };

export const getDocOutputShape = { slug: z.string(), title: z.string(), url: z.string(), markdown: z.string() };
