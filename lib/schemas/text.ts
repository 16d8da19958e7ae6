// The one rule for text that comes from outside (issue 13), used by every request, tool and A2A schema
// instead of a bare z.string():
// - every string must be well-formed UTF-16 (String.prototype.isWellFormed): a lone surrogate is valid JSON
//   ("\ud800") but no database driver can store it and no UTF-8 answer can carry it;
// - no NUL (U+0000) in any string that can reach the database or an answer: PostgreSQL's text cannot hold
//   it (SQLite can), so refusing it as input is the only way both databases answer the same;
// - names people read (client_name, agent_name) also refuse control characters (Cc) and Unicode format
//   characters (Cf: bidirectional embeddings, overrides and isolates, LRM/RLM/ALM, zero-width characters,
//   word joiners, BOM, tags…), which can make a name read as something else on the approval page.
// Headers need no rule of their own: Node's HTTP parser gives them as Latin-1 byte strings (always well-formed)
// and refuses NUL and other control bytes in them; the ones read (Authorization, Content-Type, Accept) are then
// matched against ASCII grammars.
// Each field class builds on the one before: text() ⊂ names. Opaque tokens and ids are text() too: an
// ill-formed or NUL-bearing token can never be a valid one, so refusing it early changes no answer's meaning.
import { z } from "zod";

/** String.prototype.isWellFormed (Node 20+; typed here because the project's TypeScript lib is ES2023). */
export function isWellFormedText(value: string): boolean {
  return (value as unknown as { isWellFormed(): boolean }).isWellFormed();
}

export const hasNul = (value: string): boolean => value.includes("\u0000");

/** C0 and C1 controls and DEL (general category Cc). */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
/** Unicode format characters (general category Cf), e.g. U+202E RIGHT-TO-LEFT OVERRIDE, U+200B ZERO WIDTH SPACE, U+FEFF. */
export const FORMAT_CHARACTERS = /\p{Cf}/u;

/** Text any surface accepts: well-formed UTF-16 and no NUL. */
export const WELL_FORMED_MESSAGE = "must be well-formed Unicode (no lone surrogates)";
export const NUL_MESSAGE = "must not contain NUL characters";

/** True when the string passes text(): what non-zod readers (forms, A2A parts) check too. */
export const isAcceptableText = (value: string): boolean => isWellFormedText(value) && !hasNul(value);

/** Adds the boundary rule to any string schema (e.g. one defined elsewhere, such as the e-mail schema). */
export function boundaryText<T extends z.ZodString>(schema: T): T {
  return schema.refine(isWellFormedText, WELL_FORMED_MESSAGE).refine((v) => !hasNul(v), NUL_MESSAGE) as T;
}

/** A string from outside: well-formed UTF-16, no NUL. Chain min/max/regex/describe as on z.string(). */
export const text = (): z.ZodString => boundaryText(z.string());

export const CONTROL_MESSAGE = "must not contain control characters (including invisible and bidirectional formatting characters)";

/** A name people read (client_name, agent_name): text() without control or format characters. */
export function isReadableName(value: string): boolean {
  return isAcceptableText(value) && !CONTROL_CHARACTERS.test(value) && !FORMAT_CHARACTERS.test(value);
}

/** Names people read: 1 to `max` characters, no control or format characters, no surrounding whitespace. */
export const readableName = (max: number): z.ZodString =>
  text()
    .min(1)
    .max(max)
    .refine((v) => !CONTROL_CHARACTERS.test(v) && !FORMAT_CHARACTERS.test(v), CONTROL_MESSAGE)
    .refine((v) => v.trim() === v, "must not have leading or trailing whitespace");

/**
 * The path of the first string (member names included) in a parsed JSON value for which `isBad` holds, or null.
 * A member name is reported as its object's path plus "(a member name)" so the name itself is never echoed.
 */
export function findStringWhere(value: unknown, isBad: (s: string) => boolean, path: string[] = [], depth = 0): string[] | null {
  if (typeof value === "string") return isBad(value) ? path : null;
  // JSON.parse nests at most as deep as the (size-limited) text; the bound only keeps the stack small.
  if (depth > 256 || typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findStringWhere(value[i], isBad, [...path, String(i)], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (isBad(key)) return [...path, "(a member name)"];
    const found = findStringWhere(inner, isBad, [...path, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/** The first `max` code points of a string: a cut never leaves half a surrogate pair in an answer. */
export const clip = (value: string, max: number): string => (value.length <= max ? value : [...value].slice(0, max).join(""));

/** A path from findStringWhere as a short "a.b.0" for an error message (each part cut to 40 characters). */
export const describePath = (path: string[]): string => (path.length === 0 ? "body" : path.map((part) => clip(part, 40)).join("."));
