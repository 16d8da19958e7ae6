// Request body readers shared by every endpoint: the byte limit is counted while reading (never trusted
// from Content-Length), media types are checked, JSON must be one object without repeated member names
// and with well-formed strings only, forms refuse repeated fields and NUL characters.
import { describePath, findStringWhere, hasNul, isWellFormedText } from "@/lib/schemas/text";
import type { ApiRequest, HeaderReader } from "./api";

export type BodyResult<T> = { ok: true; value: T } | { ok: false; reason: "too_large" | "invalid"; message: string };

/** Reads at most `limit` bytes; stops and reports too_large as soon as the body exceeds it. */
export async function readBodyText(request: Request, limit: number): Promise<BodyResult<string>> {
  if (!request.body) return { ok: true, value: "" };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decodeUtf8(bytes);
}

export const bodyTooLarge = (limit: number): BodyResult<never> => ({ ok: false, reason: "too_large", message: `The request body is larger than ${limit} bytes.` });

/** Strict UTF-8 (a leading BOM is dropped, as TextDecoder does). */
export function decodeUtf8(bytes: Uint8Array): BodyResult<string> {
  try {
    return { ok: true, value: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: "invalid", message: "The request body is not valid UTF-8." };
  }
}

/** The media type of the request without parameters, lower-cased ("" when absent). */
export function mediaType(request: { headers: HeaderReader }): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * The first member name that occurs twice in one object of a JSON text, or null. `text` must be valid JSON
 * (JSON.parse accepted it): the scan then only needs to tell strings, member names and nesting apart.
 * Names are compared after unescaping, so "a" and "\u0061" are the same name.
 */
export function findDuplicateMember(text: string): string | null {
  // One entry per open container: the member names seen so far in an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const names = open[open.length - 1];
      if (expectName && names) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
        expectName = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectName = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
      expectName = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      expectName = false;
    } else if (c === 0x2c /* , */) {
      expectName = open[open.length - 1] instanceof Set;
    }
  }
  return null;
}

/**
 * A JSON body that must be one object (the strict surfaces: /agent/identity*, the simulator, the batch): a
 * repeated member name anywhere is refused (which one would count is undefined, RFC 8259 §4), and so is any
 * string or member name that is not well-formed Unicode (lib/schemas/text.ts).
 */
export async function readJsonObject(request: ApiRequest, limit: number): Promise<BodyResult<Record<string, unknown>>> {
  if (mediaType(request) !== "application/json") return { ok: false, reason: "invalid", message: "The body must be JSON with Content-Type: application/json." };
  const text = await request.readBody(limit);
  if (!text.ok) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.value);
  } catch {
    return { ok: false, reason: "invalid", message: "The body is not valid JSON." };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { ok: false, reason: "invalid", message: "The body must be one JSON object." };
  const duplicate = findDuplicateMember(text.value);
  if (duplicate !== null) {
    const shown = isWellFormedText(duplicate) && !hasNul(duplicate) ? ` ${[...duplicate].slice(0, 40).join("")}` : "";
    return { ok: false, reason: "invalid", message: `The body repeats the member name${shown} in one object.` };
  }
  const illFormed = findStringWhere(parsed, (s) => !isWellFormedText(s));
  if (illFormed) return { ok: false, reason: "invalid", message: `${describePath(illFormed)}: must be well-formed Unicode (no lone surrogates).` };
  return { ok: true, value: parsed as Record<string, unknown> };
}

/**
 * An application/x-www-form-urlencoded body; a repeated field is refused (RFC 6749 §3.2), and so is a NUL
 * character in a name or value (URLSearchParams already turns ill-formed UTF-8 into U+FFFD, so every field
 * is well-formed; NUL is the one character no field may hold, lib/schemas/text.ts).
 */
export async function readForm(request: ApiRequest, limit: number): Promise<BodyResult<Map<string, string>>> {
  if (mediaType(request) !== "application/x-www-form-urlencoded") {
    return { ok: false, reason: "invalid", message: "The body must be form-encoded (application/x-www-form-urlencoded)." };
  }
  const text = await request.readBody(limit);
  if (!text.ok) return text;
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text.value)) {
    if (hasNul(key)) return { ok: false, reason: "invalid", message: "A field name contains a NUL character." };
    if (fields.has(key)) return { ok: false, reason: "invalid", message: `The field ${key.slice(0, 40)} is repeated.` };
    if (hasNul(value)) return { ok: false, reason: "invalid", message: `The field ${key.slice(0, 40)} contains a NUL character.` };
    fields.set(key, value);
  }
  return { ok: true, value: fields };
}
