// Issue 41 item 1 on a real node:http server: the body gate (lib/server/body-gate.ts) hands a request on only once its
// whole body has arrived (put back, so the handler reads every byte as from the socket), refuses a body over its limit
// with 413 before reading it (at its Content-Length, before "100 Continue", or as soon as a chunked body passes it),
// answers 408 and closes a body that misses its deadline or the minimum rate, and bounds the bodies read at once per
// caller (429) and in all (503). Each case fails without the gate (today the handler waits for any body, however slow).
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { BodyGate, type BodyGateBounds, type BodyRefusal } from "@/lib/server/body-gate";
import { writeBodyRefusal } from "@/lib/server/overload";
import { readRawBody } from "@/lib/server/front/node";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const BOUNDS: BodyGateBounds = { deadlineMs: 1500, minBytesPerSecond: 0, graceMs: 500, readers: 8, bufferBytes: 1 << 20, callerShare: 0.5 };

/** A server whose handler echoes the body it reads, as a web stream (as Next reads it) or with 'data' events. */
async function gatedServer(bounds: Partial<BodyGateBounds> = {}, limit = 1000) {
  const refusals: BodyRefusal[] = [];
  const handled: string[] = [];
  const gate = new BodyGate({
    bounds: { ...BOUNDS, ...bounds },
    refuse: (req, res, refusal) => {
      refusals.push(refusal);
      writeBodyRefusal(req, res, "rest", refusal, limit, 1.5);
    },
  }).start();
  const listener: http.RequestListener = (req, res) => {
    const caller = String(req.headers["x-caller"] ?? "one");
    gate.receive(req, res, limit, caller, () => {
      void (async () => {
        const mode = req.headers["x-read"];
        const raw = mode === "front" ? await readRawBody(req, limit) : undefined;
        const text =
          raw !== undefined
            ? raw.ok
              ? raw.bytes.toString("utf8")
              : "refused"
            : mode === "web"
              ? await new Response(Readable.toWeb(req) as ReadableStream).text()
              : await readData(req);
        handled.push(text);
        res.writeHead(200, { "content-type": "text/plain" }).end(`got ${text.length}`);
      })();
    });
  };
  const server = http.createServer(listener);
  server.on("checkContinue", listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stop = server.close.bind(server);
  void stop;
  return { port: (server.address() as AddressInfo).port, refusals, handled, gate, stopGate: () => gate.stop() };
}

function readData(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
  });
}

/** Raw HTTP over a socket: what the server writes back until it closes or `ms` pass. */
function raw(port: number, write: (socket: net.Socket) => void, ms = 4000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", () => undefined);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on("close", done);
    const timer = setTimeout(done, ms);
    socket.on("connect", () => write(socket));
  });
}

function post(port: number, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/", headers: { "content-type": "text/plain", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the body gate", () => {
  it("hands on a whole body that the handler reads in full, with 'data' events or as a web stream", async () => {
    const { port, handled } = await gatedServer();
    const body = "x".repeat(900);
    expect(await post(port, body)).toEqual({ status: 200, body: "got 900" });
    expect(await post(port, body, { "x-read": "web" })).toEqual({ status: 200, body: "got 900" });
    // The node:http front takes the gate's bytes as they are, without reading the stream again.
    expect(await post(port, body, { "x-read": "front" })).toEqual({ status: 200, body: "got 900" });
    expect(await post(port, "")).toEqual({ status: 200, body: "got 0" });
    expect(handled).toEqual([body, body, body, ""]);
  });

  it("holds a request until its last byte has arrived", async () => {
    const { port, handled } = await gatedServer();
    const answer = raw(port, (socket) => {
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\nhello");
      setTimeout(() => {
        expect(handled).toEqual([]);
        socket.write("world");
      }, 300);
    });
    expect(await answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*got 10/);
    expect(handled).toEqual(["helloworld"]);
  });

  it("refuses a declared body over the limit with 413 before reading it, and says no 'Continue' to a client that asked", async () => {
    const { port, refusals, handled } = await gatedServer();
    const tooLong = await raw(port, (socket) => socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n"));
    expect(tooLong).toMatch(/^HTTP\/1\.1 413 /);
    expect(tooLong).toContain('"error":"invalid_request"');
    const expecting = await raw(port, (socket) => socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n"));
    expect(expecting).toMatch(/^HTTP\/1\.1 413 /);
    expect(expecting).not.toContain("100 Continue");
    const fits = await raw(port, (socket) => {
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
      socket.once("data", () => socket.write("hello"));
    });
    expect(fits).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(refusals).toEqual(["too_large", "too_large"]);
    expect(handled).toEqual(["hello"]);
  });

  it("refuses a chunked body as soon as it passes the limit", async () => {
    const { port, refusals, handled } = await gatedServer();
    const answer = await raw(port, (socket) => {
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
      socket.write(`200\r\n${"a".repeat(512)}\r\n`);
      socket.write(`200\r\n${"b".repeat(512)}\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(refusals).toEqual(["too_large"]);
    expect(handled).toEqual([]);
  });

  it("answers 408 and closes a body that misses the deadline, or the minimum rate after the grace", async () => {
    const { port, refusals } = await gatedServer({ deadlineMs: 1200 });
    const started = performance.now();
    const late = await raw(port, (socket) => {
      socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab");
      const drip = setInterval(() => (socket.writable ? socket.write("c") : clearInterval(drip)), 200);
      socket.on("close", () => clearInterval(drip));
    });
    expect(late).toMatch(/^HTTP\/1\.1 408 /);
    expect(late).toMatch(/connection: close/i);
    expect(performance.now() - started).toBeLessThan(3000);
    const slow = await gatedServer({ deadlineMs: 60_000, minBytesPerSecond: 100, graceMs: 300 });
    const crawling = await raw(slow.port, (socket) => socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"));
    expect(crawling).toMatch(/^HTTP\/1\.1 408 /);
    expect([...refusals, ...slow.refusals]).toEqual(["timeout", "timeout"]);
  });

  it("bounds the bodies one caller reads at once (429), and all callers together (503)", async () => {
    const { port, refusals, gate } = await gatedServer({ readers: 4, callerShare: 0.5, deadlineMs: 60_000 });
    const open = (caller: string): net.Socket => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("error", () => undefined);
      socket.write(`POST / HTTP/1.1\r\nHost: x\r\nX-Caller: ${caller}\r\nContent-Length: 100\r\n\r\nab`);
      return socket;
    };
    const held = [open("slow"), open("slow")];
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(gate.reading).toBe(2);
    const third = await raw(port, (socket) => socket.write("POST / HTTP/1.1\r\nHost: x\r\nX-Caller: slow\r\nContent-Length: 100\r\n\r\nab"), 2500);
    expect(third).toMatch(/^HTTP\/1\.1 429 /);
    expect(third).toContain('"error":"rate_limited"');
    held.push(open("other"), open("other"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const fifth = await raw(port, (socket) => socket.write("POST / HTTP/1.1\r\nHost: x\r\nX-Caller: third\r\nContent-Length: 100\r\n\r\nab"), 2500);
    expect(fifth).toMatch(/^HTTP\/1\.1 503 /);
    expect(refusals.slice(0, 2)).toEqual(["caller_share", "busy"]);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gate.reading).toBe(0);
  });
});
