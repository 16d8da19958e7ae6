// One index over the sections of every document (title, heading, text), built once per process and ranked
// as MiniSearch ranks (./inverted-index). Results are ordered by (score rounded to 3 decimals, desc), then
// slug, then section position, so the same question always yields the same answers and the same bytes.
import { getCorpus, type Corpus, type Doc, type DocSection } from "./corpus";
import { buildInvertedIndex, searchInvertedIndex, tokenize, type InvertedIndex, type SearchOptions } from "./inverted-index";
import { processSingleton } from "@/lib/registry";

// Words that match nearly every section and so only add noise to a question like "how do I revoke".
const STOP_WORDS = new Set(
  "a an and are as at be but by can do does for from how i if in into is it its me my of on or so that the their then there these this to was what when where which who why will with you your".split(
    " ",
  ),
);

export function searchTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return lower.length < 2 || STOP_WORDS.has(lower) ? null : lower;
}

/** The fields indexed per section, in field-number order (the order of SEARCH_OPTIONS.boosts). */
const FIELDS = ["title", "heading", "text"] as const;

/**
 * The most search terms (after stop words, repeats counted) one question is searched by; the rest are
 * ignored. Each term walks the whole term list for its typos, so a question's cost grows with its terms:
 * 32 is five times the terms of the longest title or heading, and a 500-character question rarely has more.
 */
export const MAX_QUERY_TERMS = 32;

/**
 * The longest query term (UTF-16 code units, as the index counts) matched with typos. A term's allowed edits
 * grow with its length (a tenth, up to 6) and the typo walk's cost steeply with the edits; the corpus's terms
 * are 20 units or shorter but for a few identifiers and tokens nobody types by hand. Longer terms still
 * match exactly and as prefixes.
 */
export const FUZZY_TERM_MAX_LENGTH = 24;

export const SEARCH_OPTIONS: SearchOptions = {
  boosts: [3, 2, 1],
  // Prefix and typo matching only for longer words: they cost the most on a large corpus.
  prefix: (term) => term.length >= 5,
  fuzzy: (term) => (term.length >= 7 && term.length <= FUZZY_TERM_MAX_LENGTH ? 0.1 : false),
};

/** The question searched for: itself, or, when it has more than MAX_QUERY_TERMS search terms, its first ones. */
export function boundedQuery(query: string): string {
  const terms: string[] = [];
  for (const token of tokenize(query)) {
    const term = searchTerm(token);
    if (!term) continue;
    if (terms.length === MAX_QUERY_TERMS) return terms.join(" ");
    terms.push(term);
  }
  return query;
}

export interface SearchIndex {
  corpus: Corpus;
  index: InvertedIndex;
  /** Section number → document and section. */
  entries: { doc: Doc; section: DocSection; position: number }[];
}

export function buildIndex(corpus: Corpus): SearchIndex {
  const entries: SearchIndex["entries"] = [];
  const sections: string[][] = [];
  for (const doc of corpus.docs) {
    doc.sections.forEach((section, position) => {
      sections.push([doc.title, section.heading, section.text]);
      entries.push({ doc, section, position });
    });
  }
  return { corpus, index: buildInvertedIndex(sections, FIELDS.length, searchTerm), entries };
}

// In lib/registry: one index per process, although Next's routes and the server entry each bundle this module.
const globalForIndex = processSingleton<{ agentGateSearchIndex?: SearchIndex }>("docs.search-index", () => ({}));

/** The index of this process's corpus, built on first use. */
export function getSearchIndex(): SearchIndex {
  const corpus = getCorpus();
  const cached = globalForIndex.agentGateSearchIndex;
  if (cached && cached.corpus === corpus) return cached;
  const index = buildIndex(corpus);
  globalForIndex.agentGateSearchIndex = index;
  return index;
}

export interface DocHit {
  doc: Doc;
  section: DocSection;
  score: number;
  /** The processed query terms that matched in this section (for the excerpt). */
  terms: string[];
}

export const roundScore = (score: number): number => Math.round(score * 1000) / 1000;

const CACHE_SIZE = 500;
const answerCache = new Map<string, { index: SearchIndex; hits: DocHit[] }>();

const answerKey = (query: string, limit: number): string => `${limit}\u0000${query}`;

/** Whether searchDocs would answer this question from its cache (no search to run). */
export function hasCachedAnswer(query: string, limit: number, index: SearchIndex = getSearchIndex()): boolean {
  return answerCache.get(answerKey(query, limit))?.index === index;
}

/** The best-matching section of each document, best first; at most `limit` documents. */
export function searchDocs(query: string, limit: number, index: SearchIndex = getSearchIndex(), filter?: (doc: Doc) => boolean): DocHit[] {
  // Answers are deterministic, so repeated questions are served from a small LRU cache.
  const key = filter ? null : answerKey(query, limit);
  const cached = key ? answerCache.get(key) : undefined;
  if (key && cached && cached.index === index) {
    answerCache.delete(key);
    answerCache.set(key, cached);
    return cached.hits;
  }
  const hits = rankDocs(query, limit, index, filter);
  if (key) {
    answerCache.set(key, { index, hits });
    if (answerCache.size > CACHE_SIZE) answerCache.delete(answerCache.keys().next().value!);
  }
  return hits;
}

function rankDocs(query: string, limit: number, index: SearchIndex, filter?: (doc: Doc) => boolean): DocHit[] {
  // A common word matches most sections, so keep only each document's best section (ties: the earliest)
  // and sort documents rather than every matching section; matched terms are listed only for the
  // documents returned. Same order as sorting all sections by (score desc, slug, position).
  const matches = searchInvertedIndex(index.index, boundedQuery(query), searchTerm, SEARCH_OPTIONS);
  const best = new Map<string, { entry: SearchIndex["entries"][number]; section: number; score: number }>();
  for (const section of matches.documents) {
    const entry = index.entries[section]!;
    if (filter && !filter(entry.doc)) continue;
    const score = roundScore(matches.scores[section]!);
    const current = best.get(entry.doc.slug);
    if (!current || score > current.score || (score === current.score && entry.position < current.entry.position)) best.set(entry.doc.slug, { entry, section, score });
  }
  const ranked = [...best.values()].sort((a, b) => b.score - a.score || (a.entry.doc.slug < b.entry.doc.slug ? -1 : a.entry.doc.slug > b.entry.doc.slug ? 1 : 0));
  return ranked.slice(0, limit).map(({ entry, section, score }) => ({ doc: entry.doc, section: entry.section, score, terms: matches.termsOf(section).sort() }));
}

/**
 * A passage of at most `maxLength` characters around the first matched term, cut at word boundaries.
 * Falls back to the section's opening words, then to the document summary.
 */
export function excerpt(hit: Pick<DocHit, "doc" | "section" | "terms">, maxLength = 280): string {
  const text = hit.section.text || hit.doc.summary;
  if (text.length <= maxLength) return text;
  const lower = text.toLowerCase();
  let at = -1;
  for (const term of hit.terms) {
    const i = lower.indexOf(term);
    if (i !== -1 && (at === -1 || i < at)) at = i;
  }
  let start = at <= maxLength / 3 ? 0 : at - Math.floor(maxLength / 3);
  if (start > 0) {
    const space = text.indexOf(" ", start);
    start = space === -1 || space > at ? start : space + 1;
  }
  let end = Math.min(text.length, start + maxLength);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start + maxLength / 2) end = space;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}
