// The published documents as MCP resources (served by /mcp/docs): one `text/markdown` resource per document,
// its URI the document's .md twin, its text exactly the twin's (docMarkdown), listed a page at a time, read
// through one resource template by slug, with slug completions. Pure functions over the one corpus.
import { absoluteUrl } from "@/lib/config";
import { getCorpus, getDoc } from "./corpus";
import { docMarkdown } from "./pages";

export const DOC_RESOURCE_MIME_TYPE = "text/markdown";

/** Documents per resources/list page (the corpus has about twenty, so clients see the cursor at work). */
export const DOC_RESOURCES_PAGE_SIZE = 10;

/** The resource URI of a document: its markdown twin's URL, which serves the same text over plain HTTPS. */
export function docResourceUri(slug: string): string {
  return absoluteUrl(`/docs/${slug}.md`);
}

/** The RFC 6570 template every document's resource URI follows. */
export function docResourceUriTemplate(): string {
  return absoluteUrl("/docs/{slug}.md");
}

export interface DocResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

function resourceOf(slug: string, title: string, summary: string): DocResource {
  return { uri: docResourceUri(slug), name: slug, title, description: summary, mimeType: DOC_RESOURCE_MIME_TYPE };
}

/** A cursor is the offset of the page's first document, opaque to clients (base64url of "docs:<offset>"). */
function encodeCursor(offset: number): string {
  return Buffer.from(`docs:${offset}`, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(cursor)) return null;
  const match = /^docs:(0|[1-9]\d{0,5})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match ? Number(match[1]) : null;
}

export interface DocResourcePage {
  resources: DocResource[];
  nextCursor?: string;
}

/**
 * One page of document resources, in reading order; `cursor` is the previous page's nextCursor. null when the
 * cursor is not one we issued (or points past the end): the caller answers -32602 Invalid params.
 */
export function listDocResources(cursor?: string): DocResourcePage | null {
  const docs = getCorpus().docs;
  const offset = cursor === undefined ? 0 : decodeCursor(cursor);
  if (offset === null || offset > docs.length || (offset === docs.length && offset !== 0)) return null;
  const page = docs.slice(offset, offset + DOC_RESOURCES_PAGE_SIZE).map((doc) => resourceOf(doc.slug, doc.title, doc.summary));
  const next = offset + DOC_RESOURCES_PAGE_SIZE;
  return next < docs.length ? { resources: page, nextCursor: encodeCursor(next) } : { resources: page };
}

export interface DocResourceContents {
  uri: string;
  mimeType: string;
  text: string;
}

/** The contents of one document resource by slug (the .md twin's text); null for a slug no document has. */
export function readDocResource(slug: string): DocResourceContents | null {
  const doc = getDoc(slug);
  const markdown = doc ? docMarkdown(doc.slug) : null;
  return doc && markdown ? { uri: docResourceUri(doc.slug), mimeType: DOC_RESOURCE_MIME_TYPE, text: markdown } : null;
}

/** Slugs starting with `prefix` (case-insensitive), in reading order: the completion of the template's {slug} (the SDK keeps the first 100 and reports the total). */
export function completeDocSlugs(prefix: string): string[] {
  const wanted = prefix.toLowerCase();
  return getCorpus()
    .docs.map((doc) => doc.slug)
    .filter((slug) => slug.startsWith(wanted));
}
