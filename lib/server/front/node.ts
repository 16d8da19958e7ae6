// node:http ⇄ ApiRequest/ApiReply and web Request/Response, for the front (lib/server/front/index.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { bodyTooLarge, decodeUtf8, type BodyResult } from "@/lib/http/body";
import { SECURITY_HEADERS } from "@/lib/http/security-headers";
import { requestIdOf } from "@/lib/server/request-listener";
import { gatedBodyOf } from "@/lib/server/body-gate";
import { headerReader } from "../headers";

const SECURITY_NAMES = new Set(SECURITY_HEADERS.map(([name]) => name.toLowerCase()));
/** The security headers as a flat [name, value, …] list, built once: writeHead takes it without copying. */
let SECURITY_FLAT: readonly string[] = SECURITY_HEADERS.flatMap(([name, value]) => [name.toLowerCase(), value]);

/** Headers of this deployment for every answer (HSTS under an https BASE_URL), added to the prebuilt list once. */
export function addResponseHeaders(extra: readonly (readonly [name: string, value: string])[]): void {
  SECURITY_FLAT = [...SECURITY_FLAT, ...extra.flatMap(([name, value]) => [name.toLowerCase(), value])];
}

/** HTTP/1.1 framing: without Content-Length or Transfer-Encoding a request has no body. */
export function hasBodyFraming(req: IncomingMessage): boolean {
  return req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

export type RawBody = { ok: true; bytes: Buffer } | { ok: false; reason: "too_large" | "invalid" };

/** Reads at most `limit` bytes, counted while reading; stops at once when the body is larger. */
export function readRawBody(req: IncomingMessage, limit: number): Promise<RawBody> {
  if (!hasBodyFraming(req)) return Promise.resolve({ ok: true, bytes: Buffer.alloc(0) });
  // The body gate (../body-gate.ts) has read it already: take its bytes, and let the stream's copy flow out unread.
  const gated = gatedBodyOf(req);
  if (gated !== undefined) {
    req.resume();
    return Promise.resolve(gated.length > limit ? { ok: false, reason: "too_large" } : { ok: true, bytes: gated });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (result: RawBody): void => {
      if (settled) return;
      settled = true;
      req.off("data", onData).off("end", onEnd).off("error", onFailure).off("close", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limit) {
        // The rest is never read: the answer closes the connection (see writeReply).
        req.pause();
        settle({ ok: false, reason: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle({ ok: true, bytes: Buffer.concat(chunks, total) });
    const onFailure = (): void => settle({ ok: false, reason: "invalid" });
    const onClose = (): void => {
      if (!req.complete) onFailure();
    };
    req.on("data", onData).on("end", onEnd).on("error", onFailure).on("close", onClose);
  });
}

/** Most requests here (GET, HEAD) have no body: one shared answer, no promise or decoder per request. */
const NO_BODY: Promise<BodyResult<string>> = Promise.resolve({ ok: true, value: "" });

async function readTextBody(req: IncomingMessage, limit: number): Promise<BodyResult<string>> {
  const raw = await readRawBody(req, limit);
  if (raw.ok) return decodeUtf8(raw.bytes);
  return raw.reason === "too_large" ? bodyTooLarge(limit) : { ok: false, reason: "invalid", message: "The request body could not be read." };
}

export function apiRequestOf(req: IncomingMessage): ApiRequest {
  return {
    method: req.method ?? "GET",
    target: req.url ?? "/",
    headers: headerReader(req),
    readBody: (limit) => (hasBodyFraming(req) ? readTextBody(req, limit) : NO_BODY),
  };
}

/** The position of a header name in a flat [name, value, …] list (names sit at even positions). */
function nameIndex(flat: readonly string[], name: string): number {
  for (let i = 0; i < flat.length; i += 2) if (flat[i] === name) return i;
  return flat.length;
}

/** Writes an answer with the security headers Next adds to everything it serves (next.config.ts). */
export function writeReply(req: IncomingMessage, res: ServerResponse, reply: ApiReply): void {
  const body = reply.body ?? undefined;
  const headers = SECURITY_FLAT.slice();
  let hasLength = false;
  for (const name in reply.headers) {
    // A reply's own value for a security header wins, as with Next's header merging.
    if (SECURITY_NAMES.has(name)) headers.splice(nameIndex(headers, name), 2);
    headers.push(name, reply.headers[name]!);
    if (name === "content-length") hasLength = true;
  }
  if (!hasLength) headers.push("content-length", String(body === undefined ? 0 : Buffer.byteLength(body)));
  const requestId = requestIdOf(req);
  if (requestId !== undefined) headers.push("x-request-id", requestId);
  // An unread request body (too large, or a refused request) must not be taken for the next request. A request
  // without body framing has none: it is not yet `complete` within its own request event (a refusal written there),
  // and closing its connection would make every refused client connect again.
  if (!req.complete && hasBodyFraming(req)) headers.push("connection", "close");
  res.writeHead(reply.status, headers);
  res.end(body, "utf8");
}

/**
 * writeReply, unless the answer is already on its way or the client has gone; a write that fails (a header value
 * node:http refuses) ends the connection instead of throwing into the caller.
 */
export function writeOrDrop(req: IncomingMessage, res: ServerResponse, reply: ApiReply): void {
  if (res.headersSent || res.destroyed) return;
  try {
    writeReply(req, res, reply);
  } catch {
    res.destroy();
  }
}
