// The docs search's inverted index: MiniSearch 7.2's ranking (BM25+, prefix and fuzzy matches with its
// weights, OR of the query terms) over an index kept in typed arrays. MiniSearch kept its postings in a
// radix tree of Maps (15 MB and ~230,000 postings for the bench's 500 documents) that every mark-compact
// of the capped server heap had to scan; here they are ~2 MB of array buffers the collector never
// scans, and the sorted term list is the only per-term object.
// tests/unit/docs-index.test.ts checks every answer against MiniSearch itself.

/** MiniSearch's default tokenizer: runs of line breaks, separators and punctuation split terms. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;

export const tokenize = (text: string): string[] => text.split(SPACE_OR_PUNCTUATION);

/** A term as indexed and searched, or null to leave the token out. */
export type ProcessTerm = (token: string) => string | null;

export interface InvertedIndex {
  readonly fieldCount: number;
  readonly documentCount: number;
  /** Every indexed term once, in code-unit order (so a prefix's terms are one run). */
  readonly terms: readonly string[];
  /** Length of the longest term (UTF-16 code units). */
  readonly longestTerm: number;
  /** Postings of term t in field f: postingDocs/postingFreqs[postingStart[t·F+f] … postingStart[t·F+f+1]). */
  readonly postingStart: Uint32Array;
  /** Document numbers, ascending within each posting list. */
  readonly postingDocs: Uint32Array;
  readonly postingFreqs: Uint32Array;
  /** Distinct raw tokens of document d's field f at d·F+f (MiniSearch's field length). */
  readonly fieldLengths: Uint32Array;
  readonly averageFieldLengths: Float64Array;
}

/** Indexes `documents[d][f]`, the text of field f of document d; every document has the same fields. */
export function buildInvertedIndex(documents: readonly (readonly string[])[], fieldCount: number, processTerm: ProcessTerm): InvertedIndex {
  // term → [field, document, frequency, …] in the order the documents come (so documents ascend)
  const occurrences = new Map<string, number[]>();
  const fieldLengths = new Uint32Array(documents.length * fieldCount);
  const averageFieldLengths = new Float64Array(fieldCount);
  documents.forEach((fields, document) => {
    if (fields.length !== fieldCount) throw new Error(`document ${document} has ${fields.length} fields, not ${fieldCount}`);
    for (let field = 0; field < fieldCount; field++) {
      const tokens = tokenize(fields[field]!);
      const length = new Set(tokens).size;
      fieldLengths[document * fieldCount + field] = length;
      // MiniSearch's running mean, step by step, so the averages (and so the scores) are bit for bit its own.
      averageFieldLengths[field] = (averageFieldLengths[field]! * document + length) / (document + 1);
      const frequencies = new Map<string, number>();
      for (const token of tokens) {
        const term = processTerm(token);
        if (term) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
      }
      for (const [term, frequency] of frequencies) {
        const list = occurrences.get(term);
        if (list) list.push(field, document, frequency);
        else occurrences.set(term, [field, document, frequency]);
      }
    }
  });
  const terms = [...occurrences.keys()].sort();
  const longestTerm = terms.reduce((longest, term) => Math.max(longest, term.length), 0);
  let total = 0;
  for (const list of occurrences.values()) total += list.length / 3;
  const postingStart = new Uint32Array(terms.length * fieldCount + 1);
  const postingDocs = new Uint32Array(total);
  const postingFreqs = new Uint32Array(total);
  let at = 0;
  terms.forEach((term, t) => {
    const list = occurrences.get(term)!;
    for (let field = 0; field < fieldCount; field++) {
      postingStart[t * fieldCount + field] = at;
      for (let i = 0; i < list.length; i += 3) {
        if (list[i] !== field) continue;
        postingDocs[at] = list[i + 1]!;
        postingFreqs[at] = list[i + 2]!;
        at++;
      }
    }
  });
  postingStart[terms.length * fieldCount] = at;
  return { fieldCount, documentCount: documents.length, terms, longestTerm, postingStart, postingDocs, postingFreqs, fieldLengths, averageFieldLengths };
}

export interface SearchOptions {
  /** Boost of each field, by field number (positive, as MiniSearch reads a 0 as 1). */
  readonly boosts: readonly number[];
  /** Whether a query term also matches the longer terms it begins. */
  readonly prefix: (term: string) => boolean;
  /** A query term's allowed edit distance: below 1 a fraction of its length, from 1 a number of edits; false for none. */
  readonly fuzzy: (term: string) => number | false;
}

// MiniSearch's defaults: the weights of a prefix and a fuzzy match, the largest edit distance, BM25+'s parameters.
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const MAX_FUZZY = 6;
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;

export interface Matches {
  /** Matching document numbers, ascending. */
  readonly documents: readonly number[];
  /** Score of each matching document, indexed by document number. */
  readonly scores: Float64Array;
  /** The indexed terms (exact, prefix or fuzzy) that matched in a document. */
  termsOf(document: number): string[];
}

/** The documents matching any term of the query, scored as MiniSearch's search() scores them. */
export function searchInvertedIndex(index: InvertedIndex, query: string, processTerm: ProcessTerm, options: SearchOptions): Matches {
  const scores = new Float64Array(index.documentCount);
  const termScores = new Float64Array(index.documentCount);
  const queryTermsMatched = new Uint32Array(index.documentCount);
  const touched: number[] = [];
  const matched: number[] = [];
  const derivedTerms = new Set<number>();
  const seenQueryTerms = new Set<string>();
  for (const token of tokenize(query)) {
    const term = processTerm(token);
    if (!term) continue;
    // One query term: its exact match, then its prefix matches, then its fuzzy ones, summed per document.
    touched.length = 0;
    const add = (t: number, weight: number): void => {
      derivedTerms.add(t);
      addTermScores(index, t, weight, options.boosts, termScores, touched);
    };
    // The term itself, if indexed, sits where the run of the terms it begins starts.
    const at = lowerBound(index.terms, term);
    const exact = index.terms[at] === term ? at : -1;
    if (exact !== -1) add(exact, 1);
    const prefix = options.prefix(term);
    if (prefix) {
      const first = exact === -1 ? at : at + 1;
      for (let t = first, end = endOfPrefix(index.terms, term, first); t < end; t++) {
        const length = index.terms[t]!.length;
        add(t, (PREFIX_WEIGHT * length) / (length + 0.3 * (length - term.length)));
      }
    }
    const fuzzy = options.fuzzy(term);
    if (fuzzy !== false) {
      const maxDistance = fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(term.length * fuzzy)) : fuzzy;
      if (maxDistance) {
        forEachTermWithin(index, term, maxDistance, (t, distance) => {
          const candidate = index.terms[t]!;
          // A prefix match is scored as one; distance 0 is the exact match.
          if (distance === 0 || (prefix && candidate.startsWith(term))) return;
          add(t, (FUZZY_WEIGHT * candidate.length) / (candidate.length + distance));
        });
      }
    }
    const firstTime = !seenQueryTerms.has(term);
    seenQueryTerms.add(term);
    for (const document of touched) {
      if (queryTermsMatched[document] === 0) matched.push(document);
      scores[document] += termScores[document]!;
      termScores[document] = 0;
      if (firstTime) queryTermsMatched[document]!++;
    }
  }
  // MiniSearch multiplies a document's score by the number of distinct query terms it matched.
  for (const document of matched) scores[document] *= queryTermsMatched[document]!;
  matched.sort((a, b) => a - b);
  return {
    documents: matched,
    scores,
    termsOf: (document) => [...derivedTerms].filter((t) => postingsHold(index, t, document)).map((t) => index.terms[t]!),
  };
}

/** Adds `weight` × field boost × BM25+ of term t to every document holding it; new documents go to `touched`. */
function addTermScores(index: InvertedIndex, t: number, weight: number, boosts: readonly number[], termScores: Float64Array, touched: number[]): void {
  const { fieldCount, postingStart, postingDocs, postingFreqs, fieldLengths, averageFieldLengths, documentCount } = index;
  for (let field = 0; field < fieldCount; field++) {
    const start = postingStart[t * fieldCount + field]!;
    const end = postingStart[t * fieldCount + field + 1]!;
    if (start === end) continue;
    const matching = end - start;
    const averageLength = averageFieldLengths[field]!;
    // Same expression, same order of operations as MiniSearch's calcBM25Score.
    const inverseDocumentFrequency = Math.log(1 + (documentCount - matching + 0.5) / (matching + 0.5));
    const boost = boosts[field]!;
    for (let i = start; i < end; i++) {
      const document = postingDocs[i]!;
      const frequency = postingFreqs[i]!;
      const fieldLength = fieldLengths[document * fieldCount + field]!;
      const bm25 = inverseDocumentFrequency * (BM25_D + (frequency * (BM25_K + 1)) / (frequency + BM25_K * (1 - BM25_B + (BM25_B * fieldLength) / averageLength)));
      // Every part of a score is positive, so 0 means this query term has not reached the document yet.
      if (termScores[document] === 0) touched.push(document);
      termScores[document] += weight * boost * bm25;
    }
  }
}

function postingsHold(index: InvertedIndex, t: number, document: number): boolean {
  for (let field = 0; field < index.fieldCount; field++) {
    let low = index.postingStart[t * index.fieldCount + field]!;
    let high = index.postingStart[t * index.fieldCount + field + 1]!;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = index.postingDocs[middle]!;
      if (at === document) return true;
      if (at < document) low = middle + 1;
      else high = middle;
    }
  }
  return false;
}

/** First index whose term is not below `term`. */
function lowerBound(terms: readonly string[], term: string): number {
  let low = 0;
  let high = terms.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (terms[middle]! < term) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** First index from `from` whose term does not begin with `prefix` (the terms from `from` on that do are one run). */
function endOfPrefix(terms: readonly string[], prefix: string, from: number): number {
  let low = from;
  let high = terms.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (terms[middle]!.startsWith(prefix)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Calls `visit` for every term within `maxDistance` edits (Levenshtein, UTF-16 code units) of `query`, in
 * term order. The sorted list is walked as the trie it flattens: rows of the edit-distance matrix are kept
 * for the prefix a term shares with the one before, and a prefix whose row is all over the limit (or that is
 * already too long) skips every term that begins with it. As in MiniSearch, each row is computed only in the
 * band of `maxDistance` cells either side of its diagonal (every cell outside holds more than the limit), so a
 * long query term costs no more per term character than a short one.
 */
export function forEachTermWithin(index: Pick<InvertedIndex, "terms" | "longestTerm">, query: string, maxDistance: number, visit: (t: number, distance: number) => void): void {
  const { terms } = index;
  const columns = query.length + 1;
  const longest = query.length + maxDistance;
  // Rows past the longest indexed term are never reached.
  const rows = new Uint32Array((Math.min(longest, index.longestTerm) + 1) * columns);
  const over = maxDistance + 1;
  for (let j = 0; j < columns; j++) rows[j] = j;
  let previous = "";
  let validRows = 0;
  let t = 0;
  while (t < terms.length) {
    const term = terms[t]!;
    let row = 0;
    const shared = Math.min(validRows, term.length);
    while (row < shared && term.charCodeAt(row) === previous.charCodeAt(row)) row++;
    let deadPrefix = 0;
    for (; row < term.length; row++) {
      if (row === longest) {
        deadPrefix = row + 1;
        break;
      }
      // Row i = row + 1: the term's first i characters against every prefix of the query, within the band.
      const i = row + 1;
      const code = term.charCodeAt(row);
      const above = row * columns;
      const here = above + columns;
      const first = Math.max(1, i - maxDistance);
      const last = Math.min(query.length, i + maxDistance);
      // Left of the band: the first column's own value, or more than the limit.
      let smallest = first === 1 ? i : over;
      rows[here + first - 1] = smallest;
      for (let j = first; j <= last; j++) {
        const value = Math.min(rows[above + j - 1]! + (code === query.charCodeAt(j - 1) ? 0 : 1), rows[above + j]! + 1, rows[here + j - 1]! + 1);
        rows[here + j] = value;
        if (value < smallest) smallest = value;
      }
      // Right of the band: what the next row reads above its last cell.
      if (last < query.length) rows[here + last + 1] = over;
      if (smallest > maxDistance) {
        row++;
        deadPrefix = row;
        break;
      }
    }
    previous = term;
    validRows = row;
    if (deadPrefix) {
      t = endOfPrefix(terms, term.slice(0, deadPrefix), t + 1);
      continue;
    }
    // A term shorter than the query by more than the limit ends outside the band: too far by construction.
    if (term.length >= query.length - maxDistance) {
      const distance = rows[term.length * columns + query.length]!;
      if (distance <= maxDistance) visit(t, distance);
    }
    t++;
  }
}
