// Webhook sends reuse connections (issue #16): one keep-alive agent per endpoint origin. Real receivers:
// several deliveries go over one connection; a receiver closing idle sockets (or closing one just as it is
// reused) costs no failed attempt; the address check still runs at every connect.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeWebhookConnections, sendWebhook } from "@/lib/webhooks/send";
import { useTestConfig } from "../support/config";

const SECRET = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
const send = (url: string, n = 0) => sendWebhook({ url, webhookId: `msg_keepalive_${n}`, payload: JSON.stringify({ n }), secrets: [SECRET], timestamp: new Date() });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver answering 204, counting its connections. */
async function receiver(configure: (server: http.Server) => void = () => {}, host?: string) {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      res.writeHead(204).end();
    });
  });
  server.on("connection", () => connections++);
  configure(server);
  await new Promise<void>((resolve) => (host ? server.listen(0, host, resolve) : server.listen(0, resolve)));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeEach(() => {
  useTestConfig({ WEBHOOK_ALLOW_PRIVATE: "1" });
});
afterEach(() => closeWebhookConnections());

describe("webhook connection reuse", () => {
  it("several deliveries to one endpoint use one connection", async () => {
    const target = await receiver(undefined, "127.0.0.1");
    try {
      for (let n = 0; n < 5; n++) expect(await send(`http://127.0.0.1:${target.port}/hooks`, n)).toEqual({ status: 204, ok: true, excerpt: "" });
      expect(target.requests()).toBe(5);
      expect(target.connections()).toBe(1);
    } finally {
      await target.close();
    }
  });

  it("a receiver that closes idle keep-alive sockets at once causes no failed attempt", async () => {
    const target = await receiver((server) => (server.keepAliveTimeout = 1), "127.0.0.1");
    try {
      for (let n = 0; n < 5; n++) {
        expect((await send(`http://127.0.0.1:${target.port}/hooks`, n)).ok).toBe(true);
        await pause(n * 3);
      }
      expect(target.requests()).toBe(5);
    } finally {
      await target.close();
    }
  });

  it("a reused socket closed just as the next delivery goes out: sent again once on a fresh connection", async () => {
    // A raw receiver: answers the first request on a connection with keep-alive, and drops the connection
    // without answering when a second one comes on it (an idle timeout racing our reuse).
    let connections = 0;
    let answered = 0;
    const server = net.createServer((socket) => {
      connections++;
      let seen = "";
      let onThisSocket = 0;
      socket.on("data", (chunk) => {
        seen += chunk.toString("latin1");
        const posts = seen.split("POST /").length - 1;
        if (posts === onThisSocket) return;
        onThisSocket = posts;
        if (posts === 1) {
          answered++;
          socket.write("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n");
        } else socket.destroy();
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      expect((await send(url, 1)).ok).toBe(true);
      await pause(10);
      expect(await send(url, 2)).toEqual({ status: 204, ok: true, excerpt: "" });
      expect(answered).toBe(2);
      expect(connections).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("the deadline still holds on a reused connection: a receiver that stops answering fails the attempt, the next one goes out", async () => {
    let hang = false;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (!hang) res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    useTestConfig({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_SECONDS: "0.3" });
    try {
      expect((await send(url, 1)).ok).toBe(true);
      hang = true;
      const started = Date.now();
      expect(await send(url, 2)).toEqual({ status: null, ok: false, excerpt: "no answer within 0.3 s" });
      expect(Date.now() - started).toBeLessThan(2000);
      hang = false;
      expect((await send(url, 3)).ok).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a private address is refused without WEBHOOK_ALLOW_PRIVATE, also after a connection to it was pooled", async () => {
    const target = await receiver();
    try {
      // Pooled while private addresses were allowed (localhost resolves through checkedLookup at connect).
      expect((await send(`http://localhost:${target.port}/hooks`, 1)).ok).toBe(true);
      expect(target.connections()).toBe(1);
      useTestConfig();
      // http:// is refused before anything else once the flag is 0 (issue 41 item 6); over https the address
      // check at connect time (checkedLookup) still refuses the private address, before any byte is sent.
      for (const url of [`http://localhost:${target.port}/hooks`, `http://localhost:${target.port}/hooks`, `http://127.0.0.1:${target.port}/hooks`]) {
        const refused = await send(url, 2);
        expect(refused.ok).toBe(false);
        expect(refused.status).toBeNull();
        expect(refused.excerpt).toMatch(/http:\/\/ endpoint is delivered only while WEBHOOK_ALLOW_PRIVATE=1/);
      }
      for (const url of [`https://localhost:${target.port}/hooks`, `https://127.0.0.1:${target.port}/hooks`]) {
        const refused = await send(url, 3);
        expect(refused.ok).toBe(false);
        expect(refused.excerpt).toMatch(/private or reserved address/);
      }
      expect(target.requests()).toBe(1);
      expect(target.connections()).toBe(1);
    } finally {
      await target.close();
    }
  });
});
