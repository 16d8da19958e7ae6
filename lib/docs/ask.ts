// Questions to the documentation (/ask, docs.ask, search_docs) and listings (content.list), all served
// by the one search index.
import { absoluteUrl } from "@/lib/config";
import { questionSchema, type AskResponse, type ContentListArguments, type ContentListResult } from "@/lib/schemas/public-read";
import { docUrl, getCorpus } from "./corpus";
import { excerpt, searchDocs } from "./search";

export type AskQueryResult = { ok: true; query: string } | { ok: false; message: string };

export const ASK_RULE = "Send exactly one of query or q, 2 to 500 characters after trimming.";

/** /ask parameters: exactly one of query or q, sent once, trimmed, 2 to 500 characters. */
export function parseAskQuery(params: URLSearchParams): AskQueryResult {
  const values = [...params.getAll("query"), ...params.getAll("q")];
  if (values.length !== 1) return { ok: false, message: ASK_RULE };
  const parsed = questionSchema.safeParse(values[0]);
  return parsed.success ? { ok: true, query: parsed.data } : { ok: false, message: ASK_RULE };
}

/** The best `topK` documents for a question, each with its best passage. */
export function askDocs(query: string, topK: number): AskResponse {
  const answers = searchDocs(query, topK).map((hit) => ({
    slug: hit.doc.slug,
    title: hit.doc.title,
    url: docUrl(hit.doc.slug),
    excerpt: excerpt(hit),
    score: hit.score,
  }));
  return { query, answers };
}

/** Characters with a meaning in markdown, escaped so a question or excerpt is shown as typed. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+!|<>~])/g, "\\$1").replace(/\n/g, " ");
}

export function askMarkdown(result: AskResponse): string {
  const lines = [`# Answers from the documentation`, "", `Question: ${escapeMarkdown(result.query)}`, ""];
  if (result.answers.length === 0) {
    lines.push(
      "No passage of the published documentation matches this question. Try the words the documentation uses, or browse the index:",
      "",
      `- [Documentation index](${absoluteUrl("/docs.md")})`,
    );
  }
  result.answers.forEach((answer, i) => {
    lines.push(
      `## ${i + 1}. ${escapeMarkdown(answer.title)}`,
      "",
      `> ${escapeMarkdown(answer.excerpt)}`,
      "",
      `Source: <${answer.url}> (markdown: <${answer.url}.md>), score ${answer.score}`,
      "",
    );
  });
  return `${lines.join("\n").trimEnd()}\n`;
}

/** Published content, optionally narrowed by a query and a kind; reading order without a query, relevance with one. */
export function listContent(args: ContentListArguments): ContentListResult {
  const corpus = getCorpus();
  const ofKind = args.type ? (kind: string) => kind === args.type : () => true;
  const docs = args.query
    ? searchDocs(args.query, args.limit, undefined, (doc) => ofKind(doc.kind)).map((hit) => hit.doc)
    : corpus.docs.filter((doc) => ofKind(doc.kind)).slice(0, args.limit);
  return {
    items: docs.map((doc) => ({
      slug: doc.slug,
      title: doc.title,
      kind: doc.kind,
      summary: doc.summary,
      url: docUrl(doc.slug),
      markdown_url: absoluteUrl(`/docs/${doc.slug}.md`),
      updated: doc.updated,
    })),
  };
}
