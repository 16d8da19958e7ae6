// The docs search's own inverted index (lib/docs/inverted-index) against MiniSearch 7.2, the library it
// replaces: the same sections, the same scores, the same matched terms for any question, on the project's
// corpus, on the bench's 500 documents and on random corpora of hostile strings. The heap it keeps:
// tests/unit/docs-index-heap.test.ts.
import fc from "fast-check";
import MiniSearch from "minisearch";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { benchDocuments, prng } from "@/bench/documents";
import { miniSearchOf, type Section } from "@/bench/minisearch";
import { getCorpus, loadCorpus, type Corpus } from "@/lib/docs/corpus";
import { buildInvertedIndex, forEachTermWithin, searchInvertedIndex, tokenize, type InvertedIndex } from "@/lib/docs/inverted-index";
import { buildIndex, roundScore, SEARCH_OPTIONS, searchDocs, searchTerm } from "@/lib/docs/search";

const sectionsOf = (corpus: Corpus): Section[] =>
  corpus.docs.flatMap((doc) => doc.sections.map((section) => ({ title: doc.title, heading: section.heading, text: section.text }))).map((s, id) => ({ id, ...s }));

const ourIndex = (sections: readonly Section[]): InvertedIndex =>
  buildInvertedIndex(
    sections.map((s) => [s.title, s.heading, s.text]),
    3,
    searchTerm,
  );

interface Answer {
  id: number;
  score: number;
  terms: string[];
}

function theirs(miniSearch: MiniSearch<Section>, query: string): Answer[] {
  return miniSearch
    .search(query)
    .map((r) => ({ id: r.id as number, score: r.score, terms: [...r.terms].sort() }))
    .sort((a, b) => a.id - b.id);
}

function ours(index: InvertedIndex, query: string): Answer[] {
  const matches = searchInvertedIndex(index, query, searchTerm, SEARCH_OPTIONS);
  return matches.documents.map((id) => ({ id, score: matches.scores[id]!, terms: matches.termsOf(id).sort() }));
}

/** Same sections, same matched terms, scores equal to the last bits and equal once rounded as answers round them. */
function expectSameAnswers(miniSearch: MiniSearch<Section>, index: InvertedIndex, query: string): number {
  const expected = theirs(miniSearch, query);
  const actual = ours(index, query);
  expect(
    actual.map((a) => a.id),
    query,
  ).toEqual(expected.map((e) => e.id));
  actual.forEach((a, i) => {
    const e = expected[i]!;
    expect(a.terms, query).toEqual(e.terms);
    // Prefix and fuzzy matches are summed in term order here and in radix-tree order there.
    expect(Math.abs(a.score - e.score), query).toBeLessThanOrEqual(Math.abs(e.score) * 1e-12);
    expect(roundScore(a.score), query).toBe(roundScore(e.score));
  });
  return expected.length;
}

/** Every indexed word, its prefixes, its one-edit typos, and runs of them, as questions. */
function questionsFrom(sections: readonly Section[], random: () => number): string[] {
  const words = [...new Set(sections.flatMap((s) => tokenize(`${s.title} ${s.heading} ${s.text}`)).filter((w) => w.length > 0))];
  const pick = (): string => words[Math.floor(random() * words.length)]!;
  const questions: string[] = [];
  for (const word of words) {
    questions.push(word);
    if (word.length > 5) questions.push(word.slice(0, 5), word.slice(0, word.length - 1));
    if (word.length >= 7) {
      const at = Math.floor(random() * word.length);
      questions.push(
        `${word.slice(0, at)}${word.slice(at + 1)}`,
        `${word.slice(0, at)}x${word.slice(at + 1)}`,
        `${word.slice(0, at)}${word[at + 1] ?? ""}${word[at]}${word.slice(at + 2)}`,
      );
    }
  }
  for (let i = 0; i < 300; i++) questions.push(Array.from({ length: 1 + Math.floor(random() * 6) }, pick).join(random() < 0.5 ? " " : ", "));
  questions.push("how do I revoke a token token", "TOKEN Token token", "", "   ", "a an the", "x", "notificaton strem", "verificatoin of signatrue");
  return questions;
}

describe("the docs index answers as MiniSearch did", () => {
  it("on the project's corpus, for every word, prefix, typo and run of words in it", () => {
    const sections = sectionsOf(getCorpus());
    const miniSearch = miniSearchOf(sections);
    const index = ourIndex(sections);
    let answers = 0;
    for (const question of questionsFrom(sections, prng(7))) answers += expectSameAnswers(miniSearch, index, question);
    expect(answers).toBeGreaterThan(10_000);
  });

  it("on the bench's 500 documents", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-corpus-"));
    for (const [file, markdown] of benchDocuments(500, prng(20261121))) fs.writeFileSync(path.join(dir, file), markdown);
    const sections = sectionsOf(loadCorpus(dir));
    expect(sections.length).toBeGreaterThan(2500);
    const miniSearch = miniSearchOf(sections);
    const index = ourIndex(sections);
    const questions = questionsFrom(sections, prng(11));
    let answers = 0;
    for (let i = 0; i < questions.length; i += 29) answers += expectSameAnswers(miniSearch, index, questions[i]!);
    expect(answers).toBeGreaterThan(20_000);
  });

  it("on random corpora and questions of any strings (lone surrogates, format characters, punctuation)", () => {
    const unit = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("a", "b", "c", "ab", "ba", "abc", "token", "tokens", "tokenize", "verification", "verificatoin") },
      { weight: 2, arbitrary: fc.constantFrom(" ", "\n", ", ", ".", "-", "\t", "\u00a0", "\u2028") },
      { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom("\ud800", "\udc00", "\u200b", "\u202e", "\ufeff", "İ", "ß", "ﬃ") },
      // Long tokens: fuzzy matching allows up to 6 edits, and the band must hold far from the diagonal's start.
      { weight: 1, arbitrary: fc.constantFrom("a".repeat(80), "verification".repeat(6), "tokenizetokenize", "verificationx") },
    );
    const text = fc.array(unit, { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        fc.array(fc.record({ title: text, heading: text, text }), { minLength: 1, maxLength: 12 }),
        fc.array(text, { minLength: 1, maxLength: 8 }),
        (records, questions) => {
          const sections = records.map((r, id) => ({ id, ...r }));
          const miniSearch = miniSearchOf(sections);
          const index = ourIndex(sections);
          for (const question of questions) expectSameAnswers(miniSearch, index, question);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("ranks /ask's answers exactly as before: best section per document, rounded score, slug", () => {
    const corpus = getCorpus();
    const sections = sectionsOf(corpus);
    const miniSearch = miniSearchOf(sections);
    const index = buildIndex(corpus);
    const entries = corpus.docs.flatMap((doc) => doc.sections.map((section, position) => ({ doc, position })));
    for (const question of ["how do I refresh an expired attempt", "which scopes exist", "revoke delegation", "signing keys rotation", "webhook signature"]) {
      const best = new Map<string, { slug: string; position: number; score: number }>();
      for (const r of miniSearch.search(question)) {
        const { doc, position } = entries[r.id as number]!;
        const score = roundScore(r.score);
        const current = best.get(doc.slug);
        if (!current || score > current.score || (score === current.score && position < current.position)) best.set(doc.slug, { slug: doc.slug, position, score });
      }
      const expected = [...best.values()].sort((a, b) => b.score - a.score || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0)).slice(0, 5);
      const hits = searchDocs(question, 5, index);
      expect(
        hits.map((h) => ({ slug: h.doc.slug, position: h.doc.sections.indexOf(h.section), score: h.score })),
        question,
      ).toEqual(expected);
    }
  });
});

describe("terms within an edit distance", () => {
  const levenshtein = (a: string, b: string): number => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), row[j]! + 1, next[j - 1]! + 1);
      row = next;
    }
    return row[b.length]!;
  };

  it("finds exactly the terms a full edit-distance matrix finds, with their distances", () => {
    const letters = fc.constantFrom("a", "b", "c", "\ud800", "\udc00");
    const word = fc.string({ unit: letters, maxLength: 12 });
    // Queries up to far longer than any term: the band's edges and the rows past the longest term.
    const query = fc.oneof(word, fc.string({ unit: letters, maxLength: 40 }));
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 60 }), query, fc.integer({ min: 1, max: 6 }), (words, query, maxDistance) => {
        const terms = [...words].sort();
        const found: [string, number][] = [];
        const longestTerm = terms.reduce((longest, term) => Math.max(longest, term.length), 0);
        forEachTermWithin({ terms, longestTerm }, query, maxDistance, (t, distance) => found.push([terms[t]!, distance]));
        const expected = terms.map((term): [string, number] => [term, levenshtein(term, query)]).filter(([, d]) => d <= maxDistance);
        expect(found).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
