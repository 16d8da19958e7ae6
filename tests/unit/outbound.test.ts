// lib/outbound: where a request to an address someone else chose may go, and how much of its answer is read.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowedAddresses, isForbiddenAddress, OutboundAddressError, sendOutbound, type AddressPolicy, type OutboundRequest } from "@/lib/outbound";

const LOCAL: AddressPolicy = { allowPrivate: true, flag: "TEST_ALLOW_PRIVATE" };
const PUBLIC_ONLY: AddressPolicy = { allowPrivate: false, flag: "TEST_ALLOW_PRIVATE" };

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/small") return res.end("hello");
    if (path === "/large-declared") {
      res.setHeader("content-length", "5000");
      return res.end("x".repeat(5000));
    }
    if (path === "/large-chunked") {
      res.write("y".repeat(3000));
      return res.end("y".repeat(3000));
    }
    if (path === "/redirect") {
      res.writeHead(302, { location: `${base}/small` });
      return res.end();
    }
    if (path === "/broken") {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
      return setTimeout(() => res.socket?.destroy(), 20);
    }
    if (path === "/echo") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      return req.on("end", () => res.end(`${req.method} ${body}`));
    }
    // /slow: never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function request(path: string, overrides: Partial<OutboundRequest> = {}): Promise<Awaited<ReturnType<typeof sendOutbound>>> {
  return sendOutbound({ url: new URL(`${base}${path}`), method: "GET", headers: {}, policy: LOCAL, timeoutMs: 2000, maxBytes: 1024, body: "whole", ...overrides });
}

describe("where an outbound request may go", () => {
  it.each(["127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "100.64.0.1", "::1", "fc00::1", "fe80::1", "::ffff:192.168.1.1", "224.0.0.1", "not an address"])(
    "never to %s without the flag",
    (address) => expect(isForbiddenAddress(address)).toBe(true),
  );

  it("to ordinary global unicast", () => {
    expect(isForbiddenAddress("93.184.216.34")).toBe(false);
    expect(isForbiddenAddress("2606:2800:220:1:248:1893:25c8:1946")).toBe(false);
  });

  it("refuses a private answer of DNS and names the flag that allows it", async () => {
    await expect(allowedAddresses("localhost", PUBLIC_ONLY)).rejects.toThrow(OutboundAddressError);
    await expect(allowedAddresses("localhost", PUBLIC_ONLY)).rejects.toThrow(/private or reserved address .*TEST_ALLOW_PRIVATE=1/);
    expect((await allowedAddresses("localhost", LOCAL)).length).toBeGreaterThan(0);
  });

  it("refuses a private IP literal and a private name before any byte is sent, and plain http without the flag", async () => {
    expect(await request("/small", { policy: PUBLIC_ONLY, url: new URL("https://127.0.0.1/small") })).toEqual({
      ok: false,
      detail: expect.stringContaining("private or reserved"),
    });
    const port = new URL(base).port;
    expect(await request("/small", { policy: PUBLIC_ONLY, url: new URL(`https://localhost:${port}/small`) })).toEqual({
      ok: false,
      detail: expect.stringContaining("private or reserved"),
    });
    expect(await request("/small", { policy: PUBLIC_ONLY })).toEqual({ ok: false, detail: "only https URLs (http needs TEST_ALLOW_PRIVATE=1)" });
  });
});

describe("how much of the answer is read", () => {
  it("answers with the status, headers and body", async () => {
    const answer = await request("/small");
    expect(answer).toMatchObject({ ok: true, status: 200, body: "hello" });
  });

  it("sends a POST's payload", async () => {
    expect(await request("/echo", { method: "POST", payload: "ping" })).toMatchObject({ ok: true, body: "POST ping" });
  });

  it("refuses a whole body over the limit, declared or streamed", async () => {
    expect(await request("/large-declared")).toEqual({ ok: false, detail: "the answer is larger than 1024 bytes" });
    expect(await request("/large-chunked")).toEqual({ ok: false, detail: "the answer is larger than 1024 bytes" });
  });

  it("keeps an excerpt of the limit's size when an excerpt is enough", async () => {
    const answer = await request("/large-chunked", { body: "excerpt" });
    expect(answer).toMatchObject({ ok: true, status: 200 });
    expect(answer.ok && answer.body).toBe("y".repeat(1024));
  });

  it("fails a whole body that breaks off, and keeps what came of an excerpt", async () => {
    expect(await request("/broken")).toEqual({ ok: false, detail: "the answer broke off" });
    expect(await request("/broken", { body: "excerpt" })).toMatchObject({ ok: true, status: 200, body: "partial" });
  });

  it("never follows a redirect", async () => {
    expect(await request("/redirect")).toMatchObject({ ok: true, status: 302, body: "" });
  });

  it("gives up at the deadline", async () => {
    expect(await request("/slow", { timeoutMs: 200 })).toEqual({ ok: false, detail: "no answer within 0.2 s" });
  });

  it("says the connection failed, by its code only", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await request("/small", { url: new URL(`http://127.0.0.1:${port}/small`) })).toEqual({ ok: false, detail: "connection failed (ECONNREFUSED)" });
  });
});
