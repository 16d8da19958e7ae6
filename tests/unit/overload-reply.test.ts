// lib/server/overload.ts on a real node:http server: a refusal written within the request event (a full lane) keeps
// a bodyless request's connection open, so a refused client does not have to connect again (under a burst every new
// connection waits for its turn to be accepted); a refused request whose body is left unread still closes it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { writeShed } from "@/lib/server/overload";

const servers: http.Server[] = [];
const agents: http.Agent[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that refuses every request at once, as admission does when a lane and its queue are full. */
async function refusingServer(): Promise<{ port: number; connections: () => number }> {
  const server = http.createServer((req, res) => writeShed(req, res, "rest", "queue_full"));
  let connections = 0;
  server.on("connection", () => (connections += 1));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

function request(port: number, agent: http.Agent, options: { method: string; path: string; body?: Buffer }) {
  return new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, agent, method: options.method, path: options.path }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("a refusal written at once", () => {
  it("keeps a bodyless request's connection open: three refused GETs share one connection", async () => {
    const { port, connections } = await refusingServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    for (let n = 0; n < 3; n++) {
      const answer = await request(port, agent, { method: "GET", path: `/ask?query=q${n}` });
      expect(answer.status).toBe(503);
      expect(answer.connection).toBe("keep-alive");
      expect(JSON.parse(answer.body)).toMatchObject({ error: "temporarily_unavailable" });
    }
    expect(connections()).toBe(1);
  });

  it("keeps a small POST's connection open once its body is read and dropped", async () => {
    const { port, connections } = await refusingServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    for (let n = 0; n < 2; n++) {
      const answer = await request(port, agent, { method: "POST", path: "/mcp", body: Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: n, method: "ping" })) });
      expect(answer.status).toBe(503);
      expect(answer.connection).toBe("keep-alive");
    }
    expect(connections()).toBe(1);
  });

  it("closes the connection of a request whose body is too large to drain", async () => {
    const { port } = await refusingServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    const answer = await request(port, agent, { method: "POST", path: "/api/v1/batch", body: Buffer.alloc(2 * 1024 * 1024, 0x20) });
    expect(answer.status).toBe(503);
    expect(answer.connection).toBe("close");
  });
});
