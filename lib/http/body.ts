// Request body readers shared by every endpoint: the byte limit is counted while reading (never trusted
// from Content-Length), media types are checked, JSON must be one object, forms refuse repeated fields.
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

/** A web Request (route handlers) or an ApiRequest (lib/http/api.ts). */
export type BodySource = Request | ApiRequest;

function readSourceText(source: BodySource, limit: number): Promise<BodyResult<string>> {
  return "readBody" in source ? source.readBody(limit) : readBodyText(source, limit);
}

/** The media type of the request without parameters, lower-cased ("" when absent). */
export function mediaType(request: { headers: HeaderReader }): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** A JSON body that must be one object. */
export async function readJsonObject(request: BodySource, limit: number): Promise<BodyResult<Record<string, unknown>>> {
  if (mediaType(request) !== "application/json") return { ok: false, reason: "invalid", message: "The body must be JSON with Content-Type: application/json." };
  const text = await readSourceText(request, limit);
  if (!text.ok) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.value);
  } catch {
    return { ok: false, reason: "invalid", message: "The body is not valid JSON." };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { ok: false, reason: "invalid", message: "The body must be one JSON object." };
  return { ok: true, value: parsed as Record<string, unknown> };
}

/** An application/x-www-form-urlencoded body; a repeated field is refused (RFC 6749 §3.2). */
export async function readForm(request: BodySource, limit: number): Promise<BodyResult<Map<string, string>>> {
  if (mediaType(request) !== "application/x-www-form-urlencoded") {
    return { ok: false, reason: "invalid", message: "The body must be form-encoded (application/x-www-form-urlencoded)." };
  }
  const text = await readSourceText(request, limit);
  if (!text.ok) return text;
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(text.value)) {
    if (fields.has(key)) return { ok: false, reason: "invalid", message: `The field ${key.slice(0, 40)} is repeated.` };
    fields.set(key, value);
  }
  return { ok: true, value: fields };
}
