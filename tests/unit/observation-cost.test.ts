// The cheap per-request observation of the sixth bench pass (bench/README.md): the hand-serialised request line
// is byte for byte what pino writes for the same entry; the line batch hands every line on whole and in order;
// one "close" listener ends every observation, a client that left included; the address-key cache answers as the
// parser does.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { addressKey } from "@/lib/http/client-ip";
import { createLogger, LineBatch, requestLine, requestLog, setLogger, type RequestLogEntry } from "@/lib/operations/log";
import { observeRequest } from "@/lib/server/observe";
import { markServerEntry } from "@/lib/http/server-entry";

// These servers stand in for server.ts, whose request listener makes the peer address this process's own.
markServerEntry();

afterAll(() => setLogger(undefined));

/** pino's own line for a request entry, with createLogger's options and a fixed clock. */
function pinoLine(level: "info" | "error", entry: RequestLogEntry, time: string): string {
  let written = "";
  const log = pino(
    { level: "info", base: { service: "agent-gate" }, timestamp: () => `,"time":"${time}"`, formatters: { level: (label: string) => ({ level: label }) } },
    { write: (line: string) => void (written += line) },
  );
  log[level](
    {
      type: "request",
      request_id: entry.requestId,
      method: entry.method,
      route: entry.route.split(/[?#]/)[0],
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 1000) / 1000,
      client_ip: entry.clientIp,
    },
    "request",
  );
  return written;
}

const entries = fc.record({
  method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"),
  route: fc.oneof(fc.constantFrom("/ask", "/members/[slug]", "(unmatched)"), fc.string({ maxLength: 80 }), fc.string({ unit: "grapheme", maxLength: 20 })),
  status: fc.integer({ min: 100, max: 599 }),
  durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
  requestId: fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/)),
  clientIp: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom("no-address", "unknown"), fc.string({ maxLength: 40 })),
});

describe("the hand-serialised request line", () => {
  it("is exactly pino's line for the same entry and time, whatever the fields hold", () => {
    fc.assert(
      fc.property(entries, fc.constantFrom<"info" | "error">("info", "error"), (entry, level) => {
        const time = "2026-11-23T19:00:00.000Z";
        const line = requestLine(level, entry, time);
        expect(line).toBe(pinoLine(level, entry, time));
        expect(line.endsWith("\n") && line.indexOf("\n") === line.length - 1).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("goes to the logger's own stream, one write per line, and honours its level", () => {
    const lines: string[] = [];
    const entry = { method: "GET", route: "/ask?query=secret", status: 200, durationMs: 1.23456, requestId: "trace-1", clientIp: "127.0.0.1" };
    requestLog(entry, createLogger({ write: (line: string) => void lines.push(line) }, "info"));
    requestLog({ ...entry, status: 503 }, createLogger({ write: (line: string) => void lines.push(line) }, "error"));
    requestLog(entry, createLogger({ write: (line: string) => void lines.push(line) }, "warn"));
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", service: "agent-gate", route: "/ask", duration_ms: 1.235, msg: "request" });
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: "error", status: 503 });
    expect(Date.parse(String(JSON.parse(lines[0]!).time))).toBeGreaterThan(Date.now() - 60_000);
  });

  it("a logger made elsewhere gets the line through pino, in its own layout", () => {
    const lines: string[] = [];
    const foreign = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    requestLog({ method: "GET", route: "/ask", status: 200, durationMs: 1, requestId: "r", clientIp: "127.0.0.1" }, foreign);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, type: "request", route: "/ask", msg: "request" });
  });
});

describe("the line batch", () => {
  it("hands every line on whole and in order, in chunks, and everything on flush", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 200 }), fc.integer({ min: 1, max: 4096 }), (texts, chunkChars) => {
        const chunks: string[] = [];
        const batch = new LineBatch({ write: (chunk: string) => void chunks.push(chunk) }, chunkChars);
        const lines = texts.map((text) => `${JSON.stringify(text)}\n`);
        for (const line of lines) batch.write(line);
        for (const chunk of chunks) expect(chunk.length).toBeGreaterThanOrEqual(Math.min(chunkChars, chunk.length));
        batch.flush();
        expect(chunks.join("")).toBe(lines.join(""));
        for (const chunk of chunks) expect(chunk.endsWith("\n")).toBe(true);
      }),
    );
  });

  it("calls pino's flush callback once the target has the lines", async () => {
    const chunks: string[] = [];
    const batch = new LineBatch({ write: (chunk: string) => void chunks.push(chunk) });
    batch.write("a\n");
    await new Promise<void>((resolve, reject) => batch.flush((error) => (error ? reject(error) : resolve())));
    expect(chunks).toEqual(["a\n"]);
  });
});

describe("one close listener ends every observation", () => {
  it("writes one line for an answered request and a 499 line for a client that left first", async () => {
    const lines: string[] = [];
    setLogger(createLogger({ write: (line: string) => void lines.push(line) }, "info"));
    const server = http.createServer((req, res) => {
      observeRequest(req, res, req.url === "/never" ? "/never" : "/answered");
      if (req.url !== "/never") res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const answered = await fetch(`http://127.0.0.1:${port}/answered`, { headers: { "X-Request-Id": "kept-1" } });
    expect(answered.headers.get("x-request-id")).toBe("kept-1");
    await answered.text();
    const gone = new AbortController();
    const pending = fetch(`http://127.0.0.1:${port}/never`, { signal: gone.signal }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    gone.abort();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const requests = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.type === "request");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ request_id: "kept-1", route: "/answered", status: 200, client_ip: "127.0.0.1" });
    expect(requests[1]).toMatchObject({ route: "/never", status: 499 });
  });
});

describe("the address-key cache", () => {
  it("answers as the parser does, for addresses seen once or many times, past its size", () => {
    const fresh = (text: string) => {
      // Sizes past the cache's bound: the same text asked again after thousands of others.
      for (let i = 0; i < 5000; i++) addressKey(`10.${(i >> 8) & 255}.${i & 255}.1`);
      return addressKey(text);
    };
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 90 })), (text) => {
        const first = addressKey(text);
        expect(addressKey(text)).toBe(first);
        expect(fresh(text)).toBe(first);
      }),
      { numRuns: 50 },
    );
    expect(addressKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressKey("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(addressKey("x".repeat(100))).toBeNull();
  });
});
