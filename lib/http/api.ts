// One API request and its answer as plain data. The hottest API handlers take an ApiRequest and return an
// ApiReply, so the same code answers behind Next's route handlers (web Request/Response, e.g. on Vercel)
// and in the node:http front (lib/front), which skips Next's per-request pipeline under `next start`.
import type { BodyResult } from "./body";
import { readBodyText } from "./body";
import { startedByServerEntry } from "./server-entry";

/**
 * Header with the request target exactly as node:http received it, stamped by server.ts's request listener
 * (lib/server/request-listener.ts) over any client-sent copy. Next rebuilds request.url from the query it parsed,
 * and that parse loses a `__proto__` parameter: the own-account routes' "no query" rule would then differ from the
 * front's. Read only when server.ts started the process; elsewhere the header is the client's.
 */
export const TARGET_HEADER = "x-agent-gate-target";

/** Header lookup by case-insensitive name (a web Headers object fits). */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface ApiRequest {
  readonly method: string;
  /** Path and query exactly as received, e.g. "/ask?query=x" (a bare trailing "?" is kept). */
  readonly target: string;
  readonly headers: HeaderReader;
  /** The body as UTF-8 text, at most `limit` bytes (counted while reading). */
  readBody(limit: number): Promise<BodyResult<string>>;
}

/** Header names are lower case; `body` null means none (HEAD, or an empty 200 such as revocation). */
export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** The path-and-query part of an absolute URL string, without parsing (URL would drop a bare "?"). */
export function targetOf(url: string): string {
  const slash = url.indexOf("/", url.indexOf("//") + 2);
  return slash < 0 ? "/" : url.slice(slash);
}

/**
 * The path of a request target (origin form, as node:http gives it: "/ask?query=x"), without its query or fragment;
 * "/" when there is none. The one place a path is cut from a target (route lookups, the front, the listener).
 */
export function pathOf(target: string | undefined): string {
  if (target === undefined) return "/";
  const query = target.indexOf("?");
  const fragment = target.indexOf("#");
  const end = query < 0 ? fragment : fragment < 0 ? query : Math.min(query, fragment);
  return end < 0 ? target : target.slice(0, end);
}

export function fromWebRequest(request: Request): ApiRequest {
  const stamped = startedByServerEntry() ? request.headers.get(TARGET_HEADER) : null;
  return {
    method: request.method,
    target: stamped ?? targetOf(request.url),
    headers: request.headers,
    readBody: (limit) => readBodyText(request, limit),
  };
}

export function toWebResponse(reply: ApiReply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

/** The query string of a target without its "?" ("" when there is none). */
export function queryOf(target: string): string {
  const mark = target.indexOf("?");
  return mark < 0 ? "" : target.slice(mark + 1);
}

/** A text reply with its Content-Length; HEAD requests get the same headers without the body. */
export function textReply(text: string, status: number, headers: Record<string, string>, head = false): ApiReply {
  return { status, headers: { ...headers, "content-length": String(Buffer.byteLength(text)) }, body: head ? null : text };
}

/** A JSON reply (see textReply). */
export function jsonReply(value: unknown, headers: Record<string, string>, status = 200, head = false): ApiReply {
  return textReply(JSON.stringify(value), status, { "content-type": "application/json", ...headers }, head);
}
