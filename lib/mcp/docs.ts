// The read-only documentation MCP server at /mcp/docs (CONTRACT.md §9): search_docs and get_doc over the
// one corpus and index. Built fresh per request by ./http.ts (stateless); it never sees a token.
import { publicCaller } from "@/lib/agent-identity";
import { McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate } from "@modelcontextprotocol/server";
import { z } from "zod";
import { absoluteUrl } from "@/lib/config";
import { callerKey } from "@/lib/http/client-ip";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { serveMcp, statelessServerOptions, withCachedJsonSchema } from "./http";
import { clip } from "@/lib/schemas/text";
import { toolFailureMessage } from "@/lib/tools/types";
import { traceToolCall, tracingOn } from "@/lib/tracing";
import { getDocInputShape, getDocOutputShape, SEARCH_DOCS_LIMIT_DEFAULT, searchDocsInputShape, searchDocsOutputShape } from "@/lib/schemas/public-read";
import { docUrl, getDoc } from "@/lib/docs/corpus";
import { docMarkdown } from "@/lib/docs/pages";
import { completeDocSlugs, DOC_RESOURCE_MIME_TYPE, docResourceUriTemplate, listDocResources, readDocResource } from "@/lib/docs/resources";
import { excerpt, searchDocs } from "@/lib/docs/search";

export const DOCS_SERVER_NAME = "agent-gate-docs";
export const DOCS_SERVER_VERSION = "1.0.0";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const SEARCH_DOCS = {
  name: "search_docs",
  title: "Search the documentation",
  description:
    "Searches Agent Gate's published documentation and returns the best-matching documents, best first, each with a short matching snippet. Deterministic: the same query always gives the same results.",
} as const;

const GET_DOC = {
  name: "get_doc",
  title: "Read one document",
  description: "Returns one published document, by slug, as markdown with its title and URL. An unknown slug is a tool error.",
} as const;

/** What the docs server card says about each tool: the same metadata registerTool gets. */
export const DOCS_TOOL_SUMMARIES = [SEARCH_DOCS, GET_DOC].map((tool) => ({ ...tool, annotations: { ...READ_ONLY } }));

export interface SearchDocsOutput {
  results: { slug: string; title: string; url: string; snippet: string; score: number }[];
}

export function searchDocsTool(query: string, limit: number = SEARCH_DOCS_LIMIT_DEFAULT): SearchDocsOutput {
  return {
    results: searchDocs(query, limit).map((hit) => ({ slug: hit.doc.slug, title: hit.doc.title, url: docUrl(hit.doc.slug), snippet: excerpt(hit, 240), score: hit.score })),
  };
}

export interface GetDocOutput {
  slug: string;
  title: string;
  url: string;
  markdown: string;
}

export function getDocTool(slug: string): GetDocOutput | null {
  const doc = getDoc(slug);
  const markdown = doc ? docMarkdown(doc.slug) : null;
  return doc && markdown ? { slug: doc.slug, title: doc.title, url: docUrl(doc.slug), markdown } : null;
}

const DOC_TEMPLATE_NAME = "doc";

// The tools' schemas, built once (the SDK would wrap the shapes in z.object for every per-request server).
const SEARCH_DOCS_INPUT = withCachedJsonSchema(z.object(searchDocsInputShape));
const SEARCH_DOCS_OUTPUT = withCachedJsonSchema(z.object(searchDocsOutputShape));
const GET_DOC_INPUT = withCachedJsonSchema(z.object(getDocInputShape));
const GET_DOC_OUTPUT = withCachedJsonSchema(z.object(getDocOutputShape));

/** The most values one completion answer carries (the MCP limit). */
const MAX_COMPLETIONS = 100;

/**
 * completion/complete: slugs for the template's `slug` argument. Our own handler, not the SDK's: that one
 * answers a mistyped argument with -32603 and the validator's text; this one answers -32602 Invalid params.
 */
function completeSlugs(params: { ref?: unknown; argument?: unknown }): { completion: { values: string[]; total: number; hasMore: boolean } } {
  const ref = params.ref as { type?: unknown; uri?: unknown; name?: unknown } | undefined;
  const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
  if (ref?.type === "ref/prompt") throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: no prompt is named ${JSON.stringify(clip(String(ref.name), 200))}.`);
  if (ref?.type !== "ref/resource" || ref.uri !== docResourceUriTemplate()) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid params: ref must be the resource template of the documents.");
  }
  if (typeof argument?.name !== "string" || typeof argument.value !== "string") {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid params: argument must have a string name and a string value.");
  }
  const values = argument.name === "slug" ? completeDocSlugs(argument.value) : [];
  return { completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS } };
}

// The corpus changes only with a deployment: its lists and reads are as cacheable as the tool list.
const SERVER_OPTIONS = statelessServerOptions(
  "Read-only search over Agent Gate's published documentation. Call search_docs with a few words (e.g. 'slow_down polling'), then get_doc with a slug to read a whole document as markdown. Every document is also a text/markdown resource (resources/list, or the template by slug).",
  ["tools/list", "server/discover", "resources/list", "resources/templates/list", "resources/read"],
);

export function buildDocsMcpServer(): McpServer {
  const server = new McpServer({ name: DOCS_SERVER_NAME, title: "Agent Gate documentation", version: DOCS_SERVER_VERSION, websiteUrl: absoluteUrl("/docs") }, SERVER_OPTIONS);
  // A stateless server sends no notifications: declared before the SDK would default listChanged to true.
  server.server.registerCapabilities({ resources: { listChanged: false } });

  server.registerTool(
    SEARCH_DOCS.name,
    {
      title: SEARCH_DOCS.title,
      description: SEARCH_DOCS.description,
      inputSchema: SEARCH_DOCS_INPUT,
      outputSchema: SEARCH_DOCS_OUTPUT,
      annotations: { title: SEARCH_DOCS.title, ...READ_ONLY },
    },
    async ({ query, limit }) => {
      try {
        const output = tracingOn()
          ? await traceToolCall(SEARCH_DOCS.name, async () => searchDocsTool(query, limit ?? SEARCH_DOCS_LIMIT_DEFAULT))
          : searchDocsTool(query, limit ?? SEARCH_DOCS_LIMIT_DEFAULT);
        return { structuredContent: { ...output }, content: [{ type: "text", text: JSON.stringify(output) }] };
      } catch (error) {
        // Our own wording, never the exception's (the SDK would pass that on).
        return { isError: true, content: [{ type: "text", text: toolFailureMessage(SEARCH_DOCS.name, error) }] };
      }
    },
  );

  server.registerTool(
    GET_DOC.name,
    {
      title: GET_DOC.title,
      description: GET_DOC.description,
      inputSchema: GET_DOC_INPUT,
      outputSchema: GET_DOC_OUTPUT,
      annotations: { title: GET_DOC.title, ...READ_ONLY },
    },
    async ({ slug }) => {
      try {
        const output = tracingOn() ? await traceToolCall(GET_DOC.name, async () => getDocTool(slug)) : getDocTool(slug);
        if (!output) {
          return { isError: true, content: [{ type: "text", text: `No published document has the slug "${clip(slug, 200)}". Use search_docs to find slugs.` }] };
        }
        return { structuredContent: { ...output }, content: [{ type: "text", text: output.markdown }] };
      } catch (error) {
        return { isError: true, content: [{ type: "text", text: toolFailureMessage(GET_DOC.name, error) }] };
      }
    },
  );

  server.registerResource(
    DOC_TEMPLATE_NAME,
    new ResourceTemplate(docResourceUriTemplate(), { list: undefined }),
    { title: "A published document", description: "One published document by slug, as markdown (the same text as its .md twin and get_doc).", mimeType: DOC_RESOURCE_MIME_TYPE },
    (uri, variables) => {
      const slug = variables["slug"];
      const contents = typeof slug === "string" ? readDocResource(slug) : null;
      // Unknown: -32602 with data {uri} (2026-07-28); lib/mcp/http.ts answers the 2025 revisions' -32002.
      if (!contents || contents.uri !== uri.href) throw new ResourceNotFoundError(uri.href);
      return { contents: [contents] };
    },
  );
  server.server.registerCapabilities({ completions: {} });
  server.server.setRequestHandler("completion/complete", (request) => completeSlugs(request.params));
  // Every document, a page at a time (the SDK's own resources/list answers everything at once).
  server.server.setRequestHandler("resources/list", (request) => {
    const page = listDocResources(request.params?.cursor);
    if (!page) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid cursor: pass the nextCursor of the previous resources/list answer.");
    return { ...page };
  });

  return server;
}

/** POST /mcp/docs: one stateless JSON-RPC exchange (serveMcp refuses DNS-rebinding attempts, then POSTs over the caller's budget). */
export async function serveDocsMcp(request: ApiRequest): Promise<ApiReply> {
  const found = publicCaller(request, callerKey(request.headers));
  return serveMcp(request, buildDocsMcpServer, { budget: "mcpDocs", caller: found instanceof Promise ? await found : found });
}
