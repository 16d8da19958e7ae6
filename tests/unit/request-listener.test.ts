// lib/server/request-listener.ts on real node:http servers: the peer stamp, the front's interception, and turns for
// everything else — which keep a saturated server admitting new connections (libuv accepts one connection
// per event-loop iteration) and skip requests whose client has gone.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AGENT_HEADER, CALLER_HEADER, PEER_HEADER } from "@/lib/http/client-ip";
import { requestListener, type NextHandler, type RequestListenerOptions } from "@/lib/server/request-listener";
import { TurnQueue } from "@/lib/server/turns";
import { resolveRoute } from "@/lib/routes";
import { captureLog } from "../support/log";

const servers: http.Server[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(listener: NextHandler, options: RequestListenerOptions): Promise<number> {
  const server = http.createServer(requestListener(listener, options));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, headers, agent: false }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

const REQUEST = "GET / HTTP/1.1\r\nHost: test\r\n\r\n";

/**
 * A keep-alive client that sends its next request as soon as an answer arrives (as a load generator does).
 * The server answers "HTTP/1.1 200" with a 2-byte body; answers are counted by their status lines.
 */
function busyClient(port: number, onAnswer: () => void): { answers: () => number; firstAnswer: Promise<void> } {
  let answers = 0;
  let resolveFirst: () => void = () => {};
  const firstAnswer = new Promise<void>((resolve) => (resolveFirst = resolve));
  const socket = net.connect(port, "127.0.0.1", () => socket.write(REQUEST));
  sockets.push(socket);
  let buffered = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    let at: number;
    while ((at = buffered.indexOf("\r\n\r\nok")) >= 0) {
      buffered = buffered.slice(at + 6);
      answers += 1;
      if (answers === 1) resolveFirst();
      onAnswer();
      if (!socket.destroyed) socket.write(REQUEST);
    }
  });
  socket.on("error", () => {});
  return { answers: () => answers, firstAnswer };
}

/** A request handler that keeps the thread busy for `ms` (a search, a page render…). */
function busyFor(ms: number): http.RequestListener {
  return (_req, res) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
    res.writeHead(200, { "content-length": "2" });
    res.end("ok");
  };
}

describe("the request hook", () => {
  it("stamps the socket address over any client-sent copy", async () => {
    const port = await serve((req, res) => res.end(String(req.headers[PEER_HEADER])), {});
    const res = await get(port, "/", { [PEER_HEADER]: "203.0.113.9" });
    expect(res.body).toBe("127.0.0.1");
  });

  it("stamps the caller key it derived over any client-sent copy (empty without callerOf)", async () => {
    const echo: NextHandler = (req, res) => res.end(String(req.headers[CALLER_HEADER]));
    const derived = await serve(echo, { callerOf: () => "198.51.100.4" });
    expect((await get(derived, "/", { [CALLER_HEADER]: "203.0.113.9" })).body).toBe("198.51.100.4");
    const none = await serve(echo, {});
    expect((await get(none, "/", { [CALLER_HEADER]: "203.0.113.9" })).body).toBe("");
  });

  it("removes a client-sent agent stamp, writes identify's own, and admits a verified agent under its key (issue 44)", async () => {
    const tickets: string[] = [];
    const echo: NextHandler = (req, res) => res.end(String(req.headers[AGENT_HEADER]));
    const port = await serve(echo, {
      callerOf: () => "198.51.100.4",
      admission: {
        admit: (_req, _res, ticket, handle) => {
          tickets.push(ticket.caller);
          handle(true);
        },
      },
      // Stands in for lib/agent-identity listenerIdentity: undefined for a request it leaves to the handler.
      identify: (req) => {
        const signature = req.headers["x-test-signature"];
        if (signature === "verified") return Promise.resolve({ stamp: "verified t https://agent.example", agentKey: "agent:https://agent.example" });
        if (signature === "invalid") return Promise.resolve({ stamp: "invalid invalid_signature bad", agentKey: null });
        if (signature === "fails") return Promise.reject(new Error("never"));
        return undefined;
      },
    });
    const forged = { [AGENT_HEADER]: "verified t https://forged.example" };
    expect((await get(port, "/mcp", forged)).body).toBe("undefined");
    expect((await get(port, "/mcp", { ...forged, "x-test-signature": "verified" })).body).toBe("verified t https://agent.example");
    expect((await get(port, "/mcp", { ...forged, "x-test-signature": "invalid" })).body).toBe("invalid invalid_signature bad");
    expect((await get(port, "/mcp", { ...forged, "x-test-signature": "fails" })).body).toBe("undefined");
    expect(tickets).toEqual(["198.51.100.4", "agent:https://agent.example", "198.51.100.4", "198.51.100.4"]);
  });

  it("without identify, a client-sent agent stamp is still removed", async () => {
    const port = await serve((req, res) => res.end(String(req.headers[AGENT_HEADER])), {});
    expect((await get(port, "/", { [AGENT_HEADER]: "verified t https://forged.example" })).body).toBe("undefined");
  });

  it("lets the interceptor answer its requests; the listener gets the rest", async () => {
    const port = await serve((_req, res) => res.end("listener"), {
      front: (req, res) => {
        if (req.url !== "/front") return false;
        res.end("front");
        return true;
      },
      turns: new TurnQueue(),
    });
    expect((await get(port, "/front")).body).toBe("front");
    expect((await get(port, "/other")).body).toBe("listener");
  });

  it("a handler that fails ends that connection without an answer, logs one line, and the server keeps serving", async () => {
    const log = captureLog();
    try {
      const port = await serve(
        async (req, res) => {
          if (req.url === "/fails") throw new Error("secret detail");
          res.end("fine");
        },
        { turns: new TurnQueue() },
      );
      await expect(get(port, "/fails")).rejects.toThrow();
      expect((await get(port, "/works")).body).toBe("fine");
      expect(log.entries()).toEqual([expect.objectContaining({ level: "error", type: "error", context: "next request handler", error_name: "Error" })]);
    } finally {
      log.restore();
    }
  });

  it("hands requests to the listener on their turn, and never a request whose client has gone", async () => {
    const scheduled: (() => void)[] = [];
    const turns = new TurnQueue((callback) => void scheduled.push(callback));
    const handled: string[] = [];
    let serverSocketClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => (serverSocketClosed = resolve));
    const port = await serve(
      (req, res) => {
        handled.push(req.url ?? "");
        res.end("done");
      },
      { turns },
    );
    servers[0]!.on("connection", (socket: net.Socket) => socket.on("close", () => serverSocketClosed()));

    // The client sends its request and leaves before the request's turn.
    const socket = net.connect(port, "127.0.0.1", () => socket.write("GET /gone HTTP/1.1\r\nHost: test\r\n\r\n"));
    sockets.push(socket);
    await new Promise<void>((resolve) => {
      const waitForQueue = (): void => void (turns.waiting > 0 ? resolve() : setTimeout(waitForQueue, 5));
      waitForQueue();
    });
    socket.destroy();
    await closed;
    scheduled.splice(0).forEach((run) => run());
    expect(handled).toEqual([]);

    // A client that stays is answered on its turn.
    const answer = get(port, "/stays");
    await new Promise<void>((resolve) => {
      const waitForTurn = (): void => (scheduled.length > 0 ? (scheduled.splice(0).forEach((run) => run()), resolve()) : void setTimeout(waitForTurn, 5));
      waitForTurn();
    });
    expect((await answer).body).toBe("done");
    expect(handled).toEqual(["/stays"]);
  });

  it("answers probes at once, without waiting for a turn", async () => {
    const turns = new TurnQueue(() => undefined); // no turn ever comes
    const port = await serve((_req, res) => res.end("ok"), { turns, route: resolveRoute });
    for (const path of ["/healthz", "/readyz", "/_next/static/chunks/app.js"]) expect((await get(port, path)).body, path).toBe("ok");
    expect(turns.waiting).toBe(0);
  });

  it("hands a request that admission started on its turn straight to the listener: one turn per request, not two", async () => {
    const turns = new TurnQueue(() => undefined); // no turn ever comes
    const port = await serve((_req, res) => res.end("ok"), { turns, admission: { admit: (_req, _res, _ticket, handle) => handle(true) } });
    expect((await get(port, "/docs")).body).toBe("ok");
    expect(turns.waiting).toBe(0);
  });

  it("queues a request that admission started without a turn (own-account reads, tokens) for its turn", async () => {
    const turns = new TurnQueue(() => undefined);
    const port = await serve((_req, res) => res.end("ok"), { turns, admission: { admit: (_req, _res, _ticket, handle) => handle(false) } });
    const socket = net.connect(port, "127.0.0.1", () => socket.write("GET /oauth2/token HTTP/1.1\r\nHost: test\r\n\r\n"));
    sockets.push(socket);
    await vi.waitFor(() => expect(turns.waiting).toBe(1));
  });

  // 8 clients keep a server busy with 10 ms requests; then 16 more connect at once. libuv accepts one connection
  // per iteration: without turns an iteration serves every busy client (8 × 10 ms, and each newcomer adds one),
  // so the last newcomer waits behind ~140 answers; with turns an iteration is one request long (~40 answers).
  it("keeps admitting new connections while saturated", async () => {
    const port = await serve(busyFor(10), { turns: new TurnQueue() });
    let total = 0;
    const busy = Array.from({ length: 8 }, () => busyClient(port, () => (total += 1)));
    await Promise.all(busy.map((client) => client.firstAnswer));
    await new Promise<void>((resolve) => {
      const start = total;
      const waitUntilBusy = (): void => void (total - start >= 16 ? resolve() : setTimeout(waitUntilBusy, 5));
      waitUntilBusy();
    });

    const before = total;
    const newcomers = Array.from({ length: 16 }, () => busyClient(port, () => (total += 1)));
    await Promise.all(newcomers.map((client) => client.firstAnswer));
    const answeredMeanwhile = total - before;
    // With turns: the newcomers are accepted within ~16 turns, each queued behind at most 24 requests.
    expect(answeredMeanwhile).toBeLessThanOrEqual(72);
  });
});
