// The published documentation: markdown files with YAML front matter, loaded once per process from
// CONTENT_DIR (default content/docs). Everything public that reads docs (pages, markdown twins, /ask,
// the docs MCP server, the batch) goes through this one corpus.
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { absoluteUrl, getConfig } from "@/lib/config";
import { isAuthDiscoveryPublic } from "@/lib/release-mode";
import { processSingleton } from "@/lib/registry";

const frontMatterSchema = z.object({
  title: z.string().trim().min(1).max(200),
  slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "slug must be lower-case words joined by hyphens"),
  kind: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, "kind must be a short lower-case word"),
  summary: z.string().trim().min(1).max(1000),
  updated: z.union([z.string(), z.date()]).transform((v) => (typeof v === "string" ? v : v.toISOString().slice(0, 10))),
  order: z.number().int().optional(),
});

export interface DocSection {
  /** Heading text ("" for the text before the first heading). */
  heading: string;
  /** Anchor id of the heading on the HTML page ("" for the lead). */
  anchor: string;
  /** Plain text of the section (markdown syntax removed), for search and excerpts. */
  text: string;
}

export interface Doc {
  slug: string;
  title: string;
  kind: string;
  summary: string;
  updated: string;
  order: number;
  /** The markdown body without front matter. */
  body: string;
  sections: DocSection[];
}

export interface Corpus {
  /** Documents in reading order (order, then slug). */
  docs: Doc[];
  bySlug: Map<string, Doc>;
  /** Content kinds present, in display order. */
  kinds: string[];
}

/** The directory holding the corpus: CONTENT_DIR, else content/docs of the app. */
export function contentDir(): string {
  const configured = getConfig().contentDir;
  return configured !== undefined ? path.resolve(configured) : path.join(process.cwd(), "content", "docs");
}

/** Kinds with a fixed place in listings; other kinds follow alphabetically. */
const KIND_ORDER = ["guide", "docs", "reference", "policy"];

export function compareKinds(a: string, b: string): number {
  const ia = KIND_ORDER.indexOf(a);
  const ib = KIND_ORDER.indexOf(b);
  if (ia !== ib) return (ia === -1 ? KIND_ORDER.length : ia) - (ib === -1 ? KIND_ORDER.length : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Heading anchor ids, the same for the HTML page and for section links. */
export function headingAnchor(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[`*_~[\]()]/g, "")
      .replace(/[^a-z0-9\s-]/g, "")
      .trim()
      .replace(/\s+/g, "-")
      .replace(/-+/g, "-") || "section"
  );
}

/** Markdown to searchable plain text: keeps words (also those in inline code), drops syntax. */
export function markdownToPlainText(markdown: string): string {
  return (
    markdown
      .replace(/^```[^\n]*$/gm, " ")
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, " ")
      .replace(/^[ \t]{0,3}(#{1,6}|>|[-*+]|\d+\.)[ \t]+/gm, "")
      // Table separator rows; [ \t] not \s, so the pattern never runs across lines.
      .replace(/^[ \t|:-]*-{3,}[ \t|:-]*$/gm, " ")
      .replace(/[`*]/g, "")
      .replace(/\|/g, " ")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/**
 * The sections of a body, each with its prose: fenced code blocks (commands, JSON answers, schemas) are left out, so
 * a search matches and quotes what the page says, never a chunk of a schema (issue 51). Inline code stays.
 */
function splitSections(body: string): DocSection[] {
  const sections: { heading: string; lines: string[] }[] = [{ heading: "", lines: [] }];
  let inFence = false;
  for (const line of body.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const heading = /^(#{2,3})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) sections.push({ heading: heading[2]!, lines: [] });
    else sections.at(-1)!.lines.push(line);
  }
  return sections
    .map((s) => ({ heading: markdownToPlainText(s.heading), anchor: s.heading ? headingAnchor(s.heading) : "", text: markdownToPlainText(s.lines.join("\n")) }))
    .filter((s) => s.heading !== "" || s.text !== "");
}

export class CorpusError extends Error {
  constructor(file: string, detail: string) {
    super(`Invalid document ${file}: ${detail}`);
    this.name = "CorpusError";
  }
}

/**
 * The `<!-- not-run: why -->` line before a command block that tests/http/documented-commands.test.ts does not run
 * (DEVELOPING.md "Documented commands"): a note for the source's editors, never served (pages, twins, get_doc).
 */
export const NOT_RUN_MARKER = /^[ \t]*<!--\s*not-run:[^\n]*?-->[ \t]*\n/gm;

/** Parses one document file; throws CorpusError naming the file. */
export function parseDoc(file: string, source: string): Doc {
  const text = source.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const match = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  if (!match) throw new CorpusError(file, "missing front matter");
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new CorpusError(file, `front matter is not YAML (${(error as Error).message.split("\n")[0]})`);
  }
  const parsed = frontMatterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CorpusError(file, `${issue?.path.join(".") || "front matter"}: ${issue?.message ?? "invalid"}`);
  }
  const meta = parsed.data;
  const body = text.slice(match[0].length).replace(NOT_RUN_MARKER, "").replace(/^\n+/, "").replace(/\s+$/, "") + "\n";
  return {
    slug: meta.slug,
    title: meta.title,
    kind: meta.kind,
    summary: meta.summary,
    updated: meta.updated,
    order: meta.order ?? Number.MAX_SAFE_INTEGER,
    body,
    sections: splitSections(body),
  };
}

/** Where the docs' examples name a deployment that is not this one: see withBaseUrl. */
export const EXAMPLE_BASE_URL = "https://gate.example.com";

/** Authorization discovery documents, which a private release mode does not serve (CONTRACT.md §7). */
const AUTHORIZATION_DOCUMENTS =
  /\{\{BASE_URL\}\}(?=\/\.well-known\/oauth-protected-resource\/api|\/\.well-known\/oauth-authorization-server|\/\.well-known\/jwks\.json|\/auth\.md)/g;

/**
 * The placeholders of the published docs: examples name the deployment that serves them (its BASE_URL, and the
 * Bearer realm, BASE_URL's host name), so a command copied from a page runs against that page's server. In a
 * private release mode this server publishes no authorization discovery, so the docs link none of its own: those
 * URLs keep the example deployment's host.
 */
export function withBaseUrl(source: string, baseUrl: string, authDiscoveryPublic = true): string {
  const own = authDiscoveryPublic ? source : source.replace(AUTHORIZATION_DOCUMENTS, EXAMPLE_BASE_URL);
  return own.replaceAll("{{BASE_URL}}", baseUrl).replaceAll("{{BASE_HOST}}", new URL(baseUrl).hostname);
}

/** Loads every *.md file of `dir`, sorted deterministically (order, then slug), its placeholders filled in. */
export function loadCorpus(dir: string = contentDir(), baseUrl: string = getConfig().baseUrl, authDiscoveryPublic: boolean = isAuthDiscoveryPublic()): Corpus {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort();
  const docs = files.map((f) => parseDoc(f, withBaseUrl(fs.readFileSync(path.join(dir, f), "utf8"), baseUrl, authDiscoveryPublic)));
  docs.sort((a, b) => a.order - b.order || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const bySlug = new Map<string, Doc>();
  for (const doc of docs) {
    if (bySlug.has(doc.slug)) throw new CorpusError(doc.slug, "duplicate slug");
    bySlug.set(doc.slug, doc);
  }
  const kinds = [...new Set(docs.map((d) => d.kind))].sort(compareKinds);
  return { docs, bySlug, kinds };
}

// In lib/registry: one corpus per process, although Next's routes and the server entry each bundle this module.
const globalForCorpus = processSingleton<{ agentGateCorpus?: { dir: string; corpus: Corpus } }>("docs.corpus", () => ({}));

/** The corpus of this process, loaded on first use. */
export function getCorpus(): Corpus {
  const dir = contentDir();
  const cached = globalForCorpus.agentGateCorpus;
  if (cached && cached.dir === dir) return cached.corpus;
  const corpus = loadCorpus(dir);
  globalForCorpus.agentGateCorpus = { dir, corpus };
  return corpus;
}

export function getDoc(slug: string): Doc | undefined {
  return getCorpus().bySlug.get(slug);
}

export function docPath(slug: string): string {
  return `/docs/${slug}`;
}

export function docUrl(slug: string): string {
  return absoluteUrl(docPath(slug));
}

/** Human label of a content kind, for headings. */
export function kindLabel(kind: string): string {
  const labels: Record<string, string> = { guide: "Guides", docs: "Documentation", reference: "Reference", policy: "Policies" };
  return labels[kind] ?? kind.charAt(0).toUpperCase() + kind.slice(1).replace(/-/g, " ");
}
