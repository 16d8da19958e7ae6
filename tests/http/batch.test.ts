// POST /api/v1/batch (CONTRACT.md §9). A dedicated server with TRUSTED_PROXY=1 lets every test use its own
// client IP (X-Forwarded-For), so the 10-per-minute limit is tested exactly and never trips other tests.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchResponseSchema } from "@/lib/schemas/public-read";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let nextIp = 1;
const freshIp = () => `198.51.100.${nextIp++}`;

beforeAll(async () => {
  server = await startServer({ label: "batch", env: { TRUSTED_PROXY: "1" } });
});
afterAll(async () => {
  await server?.stop();
});

function post(body: BodyInit, ip = freshIp(), headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.baseUrl}/api/v1/batch`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": ip, ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `item-${i}`, operation: "docs.ask", arguments: { query: "which scopes exist", top_k: 1 } }));

async function expectEnvelopeError(res: Response, status = 400): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("ratelimit-limit")).toBe("10");
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toEqual({ error: "invalid_request", error_description: expect.any(String) });
}

describe("envelope", () => {
  it("10 items run; 11 items are refused and nothing runs", async () => {
    const ten = await post(JSON.stringify({ items: items(10) }));
    expect(ten.status).toBe(200);
    const body = batchResponseSchema.parse(await ten.json());
    expect(body.results.map((r) => r.status)).toEqual(Array(10).fill("ok"));
    await expectEnvelopeError(await post(JSON.stringify({ items: items(11) })));
  });

  it("not JSON, not an object, no items, empty items, duplicate or missing ids, unknown members → 400", async () => {
    for (const body of [
      "not json",
      "[]",
      "{}",
      JSON.stringify({ items: [] }),
      JSON.stringify({ items: "x" }),
      JSON.stringify({ items: [items(1)[0], items(1)[0]] }),
      JSON.stringify({ items: [{ operation: "docs.ask", arguments: { query: "scopes" } }] }),
      JSON.stringify({ items: items(1), extra: true }),
      JSON.stringify({ items: [{ ...items(1)[0], extra: true }] }),
    ]) {
      await expectEnvelopeError(await post(body));
    }
    await expectEnvelopeError(await post(JSON.stringify({ items: items(1) }), freshIp(), { "Content-Type": "text/plain" }));
  });

  it("262144 bytes are accepted; 262145 bytes are 413", async () => {
    const json = JSON.stringify({ items: items(1) });
    const exact = json + " ".repeat(262144 - Buffer.byteLength(json));
    expect(Buffer.byteLength(exact)).toBe(262144);
    expect((await post(exact)).status).toBe(200);
    // Refused by the body gate at its Content-Length, before the handler: the batch budget is not spent on it.
    const over = await post(exact + " ");
    expect(over.status).toBe(413);
    expect(over.headers.get("content-type")).toBe("application/json");
    expect(await over.json()).toEqual({ error: "invalid_request", error_description: "The request body is larger than 262144 bytes." });
  });

  it("the size is counted while reading, without a Content-Length", async () => {
    // Raw node:http on its own connection (chunked, no Content-Length): the server answers 413 as soon as
    // the count passes the limit, whatever the client would still send.
    const url = new URL(`${server.baseUrl}/api/v1/batch`);
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent: false,
          headers: { "Content-Type": "application/json", "X-Forwarded-For": freshIp(), "Transfer-Encoding": "chunked" },
        },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.write('{"items":[]}');
      for (let i = 0; i < 5; i++) req.write(" ".repeat(65536));
      req.end();
    });
    expect(status).toBe(413);
    expect(JSON.parse(body)).toEqual({ error: "invalid_request", error_description: expect.any(String) });
  });
});

describe("items", () => {
  it("run in order; a bad item fails alone; HTTP 200", async () => {
    const res = await post(
      JSON.stringify({
        items: [
          { id: "list", operation: "content.list", arguments: { type: "guide", limit: 2 } },
          { id: "unknown-op", operation: "members.dump", arguments: {} },
          { id: "short", operation: "docs.ask", arguments: { query: "a" } },
          { id: "bad-type", operation: "content.list", arguments: { type: "novel" } },
          { id: "ask", operation: "docs.ask", arguments: { query: "how do I revoke a token" } },
          { id: "extra-arg", operation: "docs.ask", arguments: { query: "scopes", colour: "red" } },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = batchResponseSchema.parse(await res.json());
    expect(body.results.map((r) => [r.id, r.status])).toEqual([
      ["list", "ok"],
      ["unknown-op", "error"],
      ["short", "error"],
      ["bad-type", "error"],
      ["ask", "ok"],
      ["extra-arg", "error"],
    ]);
    const list = body.results[0]!;
    expect(list.status === "ok" && "items" in list.result ? list.result.items.map((i) => i.kind) : []).toEqual(["guide", "guide"]);
    const ask = body.results[4]!;
    expect(ask.status === "ok" && "answers" in ask.result ? ask.result.answers.length : 0).toBe(3);
    const failed = body.results[1]!;
    expect(failed.status === "error" ? failed.error.error : "").toBe("invalid_request");
  });

  it("docs.ask query bounds 1/2/500/501 and top_k 1..10; content.list limit 1..50", async () => {
    const statusOf = async (operation: string, args: Record<string, unknown>) => {
      const res = await post(JSON.stringify({ items: [{ id: "x", operation, arguments: args }] }));
      return batchResponseSchema.parse(await res.json()).results[0]!.status;
    };
    expect(await statusOf("docs.ask", { query: "a" })).toBe("error");
    expect(await statusOf("docs.ask", { query: "ab" })).toBe("ok");
    expect(await statusOf("docs.ask", { query: "x".repeat(500) })).toBe("ok");
    expect(await statusOf("docs.ask", { query: "x".repeat(501) })).toBe("error");
    expect(await statusOf("docs.ask", { query: "scopes", top_k: 0 })).toBe("error");
    expect(await statusOf("docs.ask", { query: "scopes", top_k: 10 })).toBe("ok");
    expect(await statusOf("docs.ask", { query: "scopes", top_k: 11 })).toBe("error");
    expect(await statusOf("content.list", { limit: 50 })).toBe("ok");
    expect(await statusOf("content.list", { limit: 51 })).toBe("error");
    expect(await statusOf("content.list", { limit: 0 })).toBe("error");
    expect(await statusOf("content.list", {})).toBe("ok");
  });

  it("the same batch gets the same bytes", async () => {
    const body = JSON.stringify({ items: items(3) });
    const a = await (await post(body)).text();
    const b = await (await post(body)).text();
    expect(a).toBe(b);
  });
});

describe("rate limit", () => {
  it("10 requests per 60 s per client IP, with RateLimit headers, then 429 with Retry-After", async () => {
    const ip = freshIp();
    const body = JSON.stringify({ items: items(1) });
    for (let i = 1; i <= 10; i++) {
      const res = await post(body, ip);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("10");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(10 - i));
      expect(Number(res.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
      await res.arrayBuffer();
    }
    const limited = await post(body, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(await limited.json()).toEqual({ error: "rate_limited", error_description: expect.any(String) });
    // Another client is not affected.
    expect((await post(body)).status).toBe(200);
  });

  it("other methods are 405", async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/batch`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    await res.arrayBuffer();
  });
});
