// Generators of hostile input (issue 13): full-range strings with lone surrogates, NUL, control and format
// characters, and type confusion (null, numbers, arrays, objects, "__proto__") for every field; and the check
// that an answer names nothing internal (Prisma, SQL, a file path, a host or a port).
import fc from "fast-check";
import { expect } from "vitest";

/** Characters that broke or fooled the service before issue 13, plus their neighbours. */
export const NASTY_CHARACTERS = [
  "\u0000",
  "\u0007",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u00ad",
  "\u061c",
  "\u200b",
  "\u200c",
  "\u200d",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202e",
  "\u2060",
  "\u2066",
  "\u2069",
  "\ufeff",
  "\ufffd",
  "\ud83d\ude00",
  "\u{e0041}",
  "'",
  '"',
  "\\",
  "%",
  "\n",
] as const;

/** One UTF-16 unit sequence — a code point, a lone surrogate (high or low) or a known troublemaker. */
const hostileUnit: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), weight: 3 },
  { arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)), weight: 2 },
  { arbitrary: fc.constantFrom(...NASTY_CHARACTERS), weight: 2 },
  { arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }), weight: 3 },
);

/** Full-range strings: fc.string({unit: "binary"}) and friends, lone surrogates, NUL and format characters included. */
export function hostileString(maxLength = 40): fc.Arbitrary<string> {
  return fc.oneof(fc.string({ unit: hostileUnit, maxLength }), fc.string({ unit: "binary", maxLength }), fc.string({ maxLength }));
}

/** A plausible value with one hostile character put in, so it passes the other checks and meets the text rule. */
export function taintedValue(plain: string): fc.Arbitrary<string> {
  return fc
    .tuple(fc.nat({ max: plain.length }), fc.constantFrom(...NASTY_CHARACTERS, "\ud800", "\udfff", "\udc00x"))
    .map(([at, bad]) => `${plain.slice(0, at)}${bad}${plain.slice(at)}`);
}

/** An object with an own "__proto__" member (JSON.parse makes it an own property, as a server sees it). */
const protoObject = fc.jsonValue({ maxDepth: 1 }).map((inner) => JSON.parse(`{"__proto__": ${JSON.stringify(inner)}}`) as unknown);

/** Type confusion: anything but the expected type, for any field. */
export const confusedValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(hostileString(8), { maxLength: 3 }),
  fc.dictionary(hostileString(8), hostileString(8), { maxKeys: 3 }),
  protoObject,
  fc.constant({}),
  fc.constant([]),
);

/** A field's value: a plausible one, the plausible one tainted, a hostile string or a confused type. */
export function fieldValue(...plausible: string[]): fc.Arbitrary<unknown> {
  const arbitraries: fc.Arbitrary<unknown>[] = [hostileString(), confusedValue];
  if (plausible.length > 0) {
    arbitraries.push(fc.constantFrom(...plausible));
    arbitraries.push(fc.constantFrom(...plausible).chain(taintedValue));
  }
  return fc.oneof(...arbitraries);
}

/** Any query string, as percent-encoded bytes (encodeURIComponent would throw on a lone surrogate). */
export function percentEncoded(text: string): string {
  // URLSearchParams encodes a lone surrogate as U+FFFD, as browsers do; raw bytes come from encodeBytes.
  return new URLSearchParams({ x: text }).toString().slice(2);
}

export function encodeBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
}

/** What an answer must never name: Prisma, SQL or driver errors, file paths, hosts and ports (the base URL masked first). */
const INTERNALS = [
  /prisma/i,
  /invocation/i,
  /\bsql(ite)?\b/i,
  /postgres/i,
  /invalid byte sequence/i,
  /ECONN|ETIMEDOUT|ENOTFOUND/,
  /127\.0\.0\.1/,
  /localhost/i,
  /(?:[a-z0-9-]+\.[a-z]{2,}|\d+\.\d+\.\d+\.\d+|\[[0-9a-f:]+\]):\d{2,5}\b/i,
  /(?:^|[\s"'(])\/(?:work|home|usr|var|tmp|app|opt|srv)\//,
  /node_modules|\.next\//,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /\bat [\w.<>]+ \(/,
  /JSON Error/i,
];

export function expectNoInternals(text: string, base: string, context: string): void {
  const masked = text.split(base).join("{base}");
  for (const pattern of INTERNALS) expect(masked, `${context}: ${pattern} in ${masked.slice(0, 400)}`).not.toMatch(pattern);
}
