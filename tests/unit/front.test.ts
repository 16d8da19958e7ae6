// The node:http front without Next: which requests it takes, what it leaves to Next, how it reads bodies.
// A bare node:http server calls serveFront and answers 599 "next" for whatever the front leaves alone.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureFile } from "../support/config";
import type { RawResponse } from "../support/agent-auth";
import { rawRequest } from "../support/agent-auth";

let server: http.Server;
let base = "";
let readLimit = 0;

beforeAll(async () => {
  configureFile({ BASE_URL: "https://gate.example.com" });
  const { serveFront } = await import("@/lib/routes/front");
  const { readRawBody, writeReply } = await import("@/lib/server/front/node");
  server = http.createServer((req, res) => {
    // A test-only path that echoes what readRawBody read, with the limit the test set.
    // A test-only path that writes a fixed reply through writeReply.
    if (req.url === "/__write") {
      writeReply(req, res, { status: 201, headers: { "content-type": "text/plain", "x-frame-options": "SAMEORIGIN" }, body: "héllo" });
      return;
    }
    if (req.url === "/__read") {
      void readRawBody(req, readLimit).then((body) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body.ok ? { ok: true, text: body.bytes.toString("utf8") } : body));
      });
      return;
    }
    if (serveFront(req, res)) return;
    res.writeHead(599, { "content-type": "text/plain" });
    res.end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const leftToNext = (res: RawResponse): boolean => res.status === 599 && res.body === "next";

describe("what the front takes", () => {
  it("answers /ask itself, with the security headers Next would add", async () => {
    const res = await rawRequest(`${base}/ask?query=revocation`);
    expect(res.status).toBe(200);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength(res.body)));
    expect(JSON.parse(res.body)).toMatchObject({ query: "revocation" });
  });

  it("answers HEAD with the GET's length and no body", async () => {
    const get = await rawRequest(`${base}/ask?query=revocation`);
    const head = await rawRequest(`${base}/ask?query=revocation`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
  });

  it("answers the own-account challenge without touching the database for a non-token", async () => {
    const res = await rawRequest(`${base}/api/v1/agent/account`);
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe('Bearer realm="gate.example.com", resource_metadata="https://gate.example.com/.well-known/oauth-protected-resource/api"');
  });

  it("refuses a token-endpoint body over 16 KiB with 413 and closes the connection", async () => {
    const body = `grant_type=x&pad=${"a".repeat(17 * 1024)}`;
    const res = await rawRequest(`${base}/oauth2/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(body.length) },
      body,
    });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe("close");
  });

  it("refuses an MCP message over 4 MiB with a JSON-RPC 413 before the transport parses it", async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${"a".repeat(4 * 1024 * 1024)}"}}`;
    const res = await rawRequest(`${base}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Content-Length": String(body.length) },
      body,
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Request body too large." }, id: null });
  });

  it("leaves every other path, spelling and method to Next", async () => {
    const misses: [string, string][] = [
      ["GET", "/"],
      ["GET", "/oauth2/token"],
      ["OPTIONS", "/oauth2/token"],
      ["POST", "/oauth2/token/"],
      ["POST", "/OAUTH2/token"],
      ["POST", "/oauth2%2Ftoken"],
      ["POST", "/ask"],
      ["GET", "/mcp"],
      ["POST", "/mcp/docs"],
      ["GET", "/a2a"],
      ["OPTIONS", "/a2a"],
      ["GET", "/api/v1/agent/account/"],
      ["DELETE", "/api/v1/agent/account"],
      ["GET", "/toString"],
      ["GET", "/__proto__"],
    ];
    for (const [method, path] of misses) {
      expect(leftToNext(await rawRequest(`${base}${path}`, { method })), `${method} ${path}`).toBe(true);
    }
  });

  it("no path or method leaks into the front by accident (property)", async () => {
    const served = new Set([
      "POST /oauth2/token",
      "GET /api/v1/agent/account",
      "HEAD /api/v1/agent/account",
      "GET /api/v1/agent/registrations",
      "HEAD /api/v1/agent/registrations",
      "GET /ask",
      "HEAD /ask",
      "POST /mcp",
      "POST /a2a",
      "GET /healthz",
      "HEAD /healthz",
      "GET /readyz",
      "HEAD /readyz",
      "GET /robots.txt",
      "HEAD /robots.txt",
      "GET /favicon.ico",
      "HEAD /favicon.ico",
    ]);
    const { FRONT_ROUTES } = await import("@/lib/routes/front");
    const table = Object.entries(FRONT_ROUTES).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
    expect(new Set(table)).toEqual(served);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"), fc.stringMatching(/^\/[a-z0-9/_.%-]{0,30}$/), async (method, path) => {
        if (served.has(`${method} ${path}`)) return;
        expect(leftToNext(await rawRequest(`${base}${path}`, { method }))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe("readRawBody", () => {
  const read = async (limit: number, body: string | undefined, headers: Record<string, string> = {}) => {
    readLimit = limit;
    const res = await rawRequest(`${base}/__read`, { method: "POST", headers, body });
    return JSON.parse(res.body) as { ok: boolean; text?: string; reason?: string };
  };

  it("reads nothing when the request has no body framing", async () => {
    expect(await read(10, undefined)).toEqual({ ok: true, text: "" });
  });

  it("reads a body up to the limit, counted in bytes", async () => {
    expect(await read(5, "héllo", { "Content-Length": String(Buffer.byteLength("héllo")) })).toEqual({ ok: false, reason: "too_large" });
    expect(await read(6, "héllo", { "Content-Length": String(Buffer.byteLength("héllo")) })).toEqual({ ok: true, text: "héllo" });
  });

  it("counts chunked bodies while reading (Content-Length is never trusted)", async () => {
    expect(await read(4, "12345", { "Transfer-Encoding": "chunked" })).toEqual({ ok: false, reason: "too_large" });
    expect(await read(5, "12345", { "Transfer-Encoding": "chunked" })).toEqual({ ok: true, text: "12345" });
  });
});

describe("writeReply", () => {
  it("adds the security headers, lets the reply's own value of one win, and counts the body in bytes", async () => {
    const res = await rawRequest(`${base}/__write`);
    expect(res.status).toBe(201);
    expect(res.body).toBe("héllo");
    expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength("héllo")));
  });
});
