// The node:http front (issue 7, bench/README.md). Next's request pipeline costs 2–3 ms of
// CPU per request before a route handler runs (web-stream conversion, router server, tracing, module
// template): that alone caps a route at a few hundred requests per second on two cores. The hottest API
// paths are therefore answered straight from node:http, by the very handlers their route files use
// (lib/http/api.ts), with the same security headers. Every other path, and every other method of these
// paths (405s, CORS preflights…), goes to Next unchanged. Only server.ts mounts the front: under a bare
// `next start` or on Vercel the route files answer these paths themselves.
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveOwnAccountRoute } from "@/lib/agent-api";
import { askReply } from "@/lib/docs/responses";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { decodeUtf8 } from "@/lib/http/body";
import { jsonRpcTransportError } from "@/lib/http/errors";
import { errorToReply } from "@/lib/http/route";
import { serveCommunityMcp } from "@/lib/mcp/community";
import { aliveReply, readyReply } from "@/lib/operations/health";
import type { ParsedMcpBody } from "@/lib/mcp/http";
import { handleToken } from "@/lib/service-auth/http";
import { apiRequestOf, readRawBody, replyOfWebResponse, webRequestOf, writeReply } from "./node";

/** The largest JSON-RPC message the front reads (the MCP SDK's own limit for node:http). */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

type FrontHandler = (request: ApiRequest, raw: IncomingMessage) => Promise<ApiReply>;

/**
 * The body as a JSON-RPC message for the SDK, or undefined when it is not UTF-8 JSON: the SDK is then handed
 * the bytes and decodes and answers them as it always did (decodeUtf8 drops a BOM, as the SDK's decoder does).
 */
function parsedMcpBody(bytes: Buffer): ParsedMcpBody | undefined {
  const text = decodeUtf8(bytes);
  if (!text.ok) return undefined;
  try {
    return { parsedBody: JSON.parse(text.value) as unknown };
  } catch {
    return undefined;
  }
}

/** POST /mcp: the body is read (bounded) and parsed once, and the SDK is handed the message, not a stream to read again. */
async function serveMcpFront(_request: ApiRequest, raw: IncomingMessage): Promise<ApiReply> {
  const body = await readRawBody(raw, MCP_BODY_LIMIT);
  if (!body.ok) {
    const tooLarge = body.reason === "too_large";
    return replyOfWebResponse(jsonRpcTransportError(tooLarge ? 413 : 400, tooLarge ? "Request body too large." : "The request body could not be read."));
  }
  const parsed = parsedMcpBody(body.bytes);
  const request = webRequestOf(raw, parsed !== undefined || body.bytes.length === 0 ? null : body.bytes);
  return replyOfWebResponse(await serveCommunityMcp(request, parsed));
}

const ownAccount = (route: "account" | "registrations"): FrontHandler => (request) => serveOwnAccountRoute(request, route);

/** Path → method → handler, the same handlers the route files use. Exact paths only: Next normalises anything else. */
export const FRONT_ROUTES: Readonly<Record<string, Readonly<Partial<Record<string, FrontHandler>>>>> = {
  "/oauth2/token": { POST: (request) => handleToken(request) },
  "/api/v1/agent/account": { GET: ownAccount("account"), HEAD: ownAccount("account") },
  "/api/v1/agent/registrations": { GET: ownAccount("registrations"), HEAD: ownAccount("registrations") },
  "/ask": { GET: askReply, HEAD: askReply },
  "/mcp": { POST: serveMcpFront },
  "/healthz": { GET: aliveReply, HEAD: aliveReply },
  "/readyz": { GET: readyReply, HEAD: readyReply },
};

function frontHandler(url: string, method: string): FrontHandler | undefined {
  const mark = url.indexOf("?");
  const path = mark < 0 ? url : url.slice(0, mark);
  const route = Object.hasOwn(FRONT_ROUTES, path) ? FRONT_ROUTES[path] : undefined;
  return route && Object.hasOwn(route, method) ? route[method] : undefined;
}

function writeOrDrop(req: IncomingMessage, res: ServerResponse, reply: ApiReply): void {
  try {
    writeReply(req, res, reply);
  } catch {
    res.destroy();
  }
}

/**
 * Answers the request when it is one of the front's and returns true; false leaves it to Next. Called for
 * every request the server receives, so a miss costs one lookup.
 */
export function serveFront(req: IncomingMessage, res: ServerResponse): boolean {
  const handler = req.url !== undefined && req.method !== undefined ? frontHandler(req.url, req.method) : undefined;
  if (handler === undefined) return false;
  // One promise per request (each costs async-hook work under Next): a failure is answered like route() does.
  void handler(apiRequestOf(req), req).then(
    (reply) => writeOrDrop(req, res, reply),
    (error: unknown) => writeOrDrop(req, res, errorToReply(error)),
  );
  return true;
}
