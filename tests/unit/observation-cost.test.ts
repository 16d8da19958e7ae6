// The per-request observation: the request line carries its fields in a fixed order through the logger's own
// stream and honours its level; the process's stdout loses no line at exit; one "close" listener ends every
// observation, a client that left included; the address-key cache answers as the parser does.
import { spawnSync } from "node:child_process";
import http from "node:http";
import path from "node:path";
import fc from "fast-check";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { addressKey } from "@/lib/http/client-ip";
import { createLogger, requestLog, setLogger } from "@/lib/observability/log";
import { observeRequest } from "@/lib/server/observe";
import { markServerEntry } from "@/lib/http/server-entry";
import { childEnv } from "../support/databases";
import { closeLocally, leaveBeforeAnswer, listenLocally } from "../support/local-server";

// These servers stand in for server.ts, whose request listener makes the peer address this process's own.
markServerEntry();

afterAll(() => setLogger(undefined));

describe("the request line", () => {
  it("has the request's fields, in order, after the level, time and service", () => {
    const lines: string[] = [];
    const entry = { method: "POST", route: "/oauth2/token", status: 200, durationMs: 2.0004, requestId: "r-1", clientIp: "192.0.2.1" };
    requestLog(entry, createLogger({ write: (line: string) => void lines.push(line) }, "info"));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith("\n") && lines[0]!.indexOf("\n") === lines[0]!.length - 1).toBe(true);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(["level", "time", "service", "type", "request_id", "method", "route", "status", "duration_ms", "client_ip", "msg"]);
    expect(line).toMatchObject({ level: "info", service: "agent-gate", type: "request", request_id: "r-1", method: "POST", route: "/oauth2/token" });
    expect(line).toMatchObject({ status: 200, duration_ms: 2, client_ip: "192.0.2.1", msg: "request" });
    expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("goes to the logger's own stream, one write per line, and honours its level", () => {
    const lines: string[] = [];
    const entry = { method: "GET", route: "/ask", status: 200, durationMs: 1.23456, requestId: "trace-1", clientIp: "127.0.0.1" };
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

describe("the process's stdout", () => {
  it("an exit right after logging loses no line (the asynchronous destination is flushed on exit)", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", path.join("tests", "support", "log-exit-probe.mts"), "2000"], {
      encoding: "utf8",
      env: childEnv({ LOG_LEVEL: "info" }),
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toMatchObject({ type: "request", request_id: "r1999", route: "/ask", status: 200 });
    expect(lines[2000]).toMatchObject({ type: "last", msg: "last" });
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
    const base = await listenLocally(server);
    const answered = await fetch(`${base}/answered`, { headers: { "X-Request-Id": "kept-1" } });
    expect(answered.headers.get("x-request-id")).toBe("kept-1");
    await answered.text();
    await leaveBeforeAnswer(`${base}/never`);
    await closeLocally(server);
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
