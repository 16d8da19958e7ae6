// Bounded cost per request (issue 32): a question's length in characters, the search terms it is searched by,
// and the length of a term matched with typos.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tokenize } from "@/lib/docs/inverted-index";
import { boundedQuery, FUZZY_TERM_MAX_LENGTH, MAX_QUERY_TERMS, SEARCH_OPTIONS, searchDocs, searchTerm } from "@/lib/docs/search";
import { characterLength, contentListArgumentsSchema, docsAskArgumentsSchema, QUESTION_MAX, questionSchema, searchDocsInputShape } from "@/lib/schemas/public-read";
import { isAcceptableText } from "@/lib/schemas/text";
import { hostileString } from "../support/hostile";

const searchDocsInput = z.object(searchDocsInputShape);
const EMOJI = "\u{1f600}";

describe("a question's length is counted in characters on every surface", () => {
  it("search_docs takes 500 characters and refuses 501, counting an emoji as one character as /ask does", () => {
    for (const unit of ["x", EMOJI]) {
      expect(searchDocsInput.safeParse({ query: unit.repeat(QUESTION_MAX) }).success, unit).toBe(true);
      expect(searchDocsInput.safeParse({ query: unit.repeat(QUESTION_MAX + 1) }).success, unit).toBe(false);
      expect(questionSchema.safeParse(unit.repeat(QUESTION_MAX)).success, unit).toBe(true);
      expect(questionSchema.safeParse(unit.repeat(QUESTION_MAX + 1)).success, unit).toBe(false);
      expect(docsAskArgumentsSchema.safeParse({ query: unit.repeat(QUESTION_MAX) }).success, unit).toBe(true);
      expect(docsAskArgumentsSchema.safeParse({ query: unit.repeat(QUESTION_MAX + 1) }).success, unit).toBe(false);
      expect(contentListArgumentsSchema.safeParse({ query: unit.repeat(QUESTION_MAX) }).success, unit).toBe(true);
      expect(contentListArgumentsSchema.safeParse({ query: unit.repeat(QUESTION_MAX + 1) }).success, unit).toBe(false);
    }
  });

  it("search_docs publishes the same bound as JSON Schema's maxLength (which counts characters too)", () => {
    const schema = z.toJSONSchema(searchDocsInput) as unknown as { properties: { query: { minLength?: number; maxLength?: number } } };
    expect(schema.properties.query).toMatchObject({ minLength: 1, maxLength: QUESTION_MAX });
  });

  it("any string: search_docs accepts it exactly when it meets the text rule and has 1 to 500 characters, and never throws", () => {
    const long = fc.constantFrom("x", EMOJI, "\ud800", "\u200b", " ").chain((unit) => fc.integer({ min: 495, max: 1005 }).map((n) => unit.repeat(n)));
    fc.assert(
      fc.property(fc.oneof(hostileString(60), long), (query) => {
        const parsed = searchDocsInput.safeParse({ query });
        const length = characterLength(query);
        expect(parsed.success).toBe(isAcceptableText(query) && length >= 1 && length <= QUESTION_MAX);
      }),
      { numRuns: 500 },
    );
  });

  it("type confusion is refused, never thrown", () => {
    for (const query of [null, 1, true, [], {}, ["x"], { toString: "x" }]) expect(searchDocsInput.safeParse({ query }).success).toBe(false);
  });
});

describe("a question is searched by at most MAX_QUERY_TERMS terms", () => {
  const filler = (n: number): string => Array.from({ length: n }, (_, i) => `zq${i}`).join(" ");

  it("a question within the bound is searched as it is; beyond it, by its first terms (stop words not counted, repeats counted)", () => {
    const within = `how do I ${filler(MAX_QUERY_TERMS)} and the`;
    expect(boundedQuery(within)).toBe(within);
    expect(boundedQuery(`${filler(MAX_QUERY_TERMS)} revoke`)).toBe(filler(MAX_QUERY_TERMS));
    expect(boundedQuery(`${"Token ".repeat(MAX_QUERY_TERMS)}revoke`)).toBe(Array(MAX_QUERY_TERMS).fill("token").join(" "));
  });

  it("a word after the first MAX_QUERY_TERMS terms finds nothing; within them it does", () => {
    expect(searchDocs(`${filler(MAX_QUERY_TERMS - 1)} revoke`, 5).length).toBeGreaterThan(0);
    expect(searchDocs(`${filler(MAX_QUERY_TERMS)} revoke`, 5)).toEqual([]);
  });

  it("any question: the bounded one has at most MAX_QUERY_TERMS search terms, the same first ones", () => {
    const word = fc.oneof(fc.constantFrom("the", "a", "token", "Revoke", "x", "scopes", "ß", "İ"), hostileString(8));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 120 }), fc.constantFrom(" ", ", ", "\n", "-"), (words, separator) => {
        const query = words.join(separator);
        const termsOf = (q: string): string[] => tokenize(q).flatMap((token) => searchTerm(token) ?? []);
        const bounded = termsOf(boundedQuery(query));
        expect(bounded.length).toBeLessThanOrEqual(MAX_QUERY_TERMS);
        expect(bounded).toEqual(termsOf(query).slice(0, MAX_QUERY_TERMS));
      }),
      { numRuns: 300 },
    );
  });
});

describe("typo matching is bounded by a term's length", () => {
  it(`terms of 7 to ${FUZZY_TERM_MAX_LENGTH} code units are matched with typos; longer ones only exactly or as prefixes`, () => {
    expect(SEARCH_OPTIONS.fuzzy("x".repeat(6))).toBe(false);
    expect(SEARCH_OPTIONS.fuzzy("x".repeat(7))).toBe(0.1);
    expect(SEARCH_OPTIONS.fuzzy("x".repeat(FUZZY_TERM_MAX_LENGTH))).toBe(0.1);
    expect(SEARCH_OPTIONS.fuzzy("x".repeat(FUZZY_TERM_MAX_LENGTH + 1))).toBe(false);
    expect(SEARCH_OPTIONS.prefix("x".repeat(QUESTION_MAX))).toBe(true);
  });
});
