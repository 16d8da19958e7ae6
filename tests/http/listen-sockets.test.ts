// server.ts listens with four sockets (lib/server/listen.ts LISTEN_SOCKETS) on its one port (lib/server/listen.ts, Linux's SO_REUSEPORT), each
// accepting a connection per event-loop iteration. Counted from the kernel's table of listening sockets, not from
// the server's own word; a second instance started on a port in use still refuses to start, and a connection taken
// by any of the sockets is answered by the same server.
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/server";

/** Listening TCP sockets on `port` in the kernel's tables (IPv4 and IPv6). */
function listeningSockets(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT" in hex; state 0A is LISTEN.
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A") count += 1;
    }
  }
  return count;
}

/** One GET on a fresh connection (no keep-alive), so the kernel picks a listening socket for each. */
function freshGet(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
      .on("error", reject);
  });
}

describe("the default: four sockets on the port", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ label: "listen-sockets" });
  });
  afterAll(() => server.stop());

  it("has four listening sockets on its port", () => {
    expect(listeningSockets(server.port)).toBe(4);
  });

  it("answers every new connection, whichever socket the kernel gives it to", async () => {
    const statuses = await Promise.all(Array.from({ length: 64 }, () => freshGet(server.port, "/healthz")));
    expect(statuses).toEqual(Array<number>(64).fill(200));
  });

  it("a second instance on the same port refuses to start (EADDRINUSE), and the first keeps answering", async () => {
    const second = await startServer({ label: "listen-sockets-second", env: { PORT: String(server.port) }, expectExit: true });
    expect(second.exitCode()).toBe(1);
    expect(second.output()).toContain("EADDRINUSE");
    expect(listeningSockets(server.port)).toBe(4);
    expect(await freshGet(server.port, "/healthz")).toBe(200);
  });

  it("stops listening on every socket at SIGTERM", async () => {
    const port = server.port;
    await server.stop();
    expect(listeningSockets(port)).toBe(0);
  });
});
