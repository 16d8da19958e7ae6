// Listening on one port with several sockets. A listening socket accepts one connection per event-loop iteration
// (libuv 1.45, libuv PR #3696), so its backlog drains at the pace of iterations: with busy keep-alive connections an
// iteration lasts tens of milliseconds, and a thousand clients connecting at once (a health probe among them) wait
// many seconds to be accepted. Linux's SO_REUSEPORT (Node's `reusePort`) lets several sockets listen on one port; the
// kernel spreads new connections over them and each accepts one per iteration. The extra sockets hand their
// connections to the one HTTP server through its 'connection' event (Node's documented way to inject a connection),
// so the request listener, the keep-alive and timeout handling and the shutdown's connection tracking stay one.
import type http from "node:http";
import net from "node:net";

export interface Listening {
  /** The port listened on (the one chosen when 0 was asked for). */
  port: number;
  /** Stops accepting on every socket; `done` runs once every connection any of them accepted has closed. */
  close(done: () => void): void;
}

/**
 * How many sockets listen on the one port under npm start where the platform allows it: bench/README.md "Speed layers"
 * measured four against one under overload (+38 % answers, client timeouts a third to a fifteenth).
 */
export const LISTEN_SOCKETS = 4;

/** Where the platform spreads a port's connections over several sockets (Node's `reusePort`). */
const SHARES_A_PORT = process.platform === "linux";

export async function listen(server: http.Server, options: { port: number; host?: string; sockets: number }): Promise<Listening> {
  const count = SHARES_A_PORT ? options.sockets : 1;
  const reusePort = count > 1;
  // A shared port would also let a second instance started by mistake share it silently: take it alone first, so
  // that one fails with EADDRINUSE as before, then let it go and listen on it with every socket.
  const claimed = reusePort ? await claimAlone(options.port, options.host) : options.port;
  await listenOn(server, { port: claimed, host: options.host, reusePort });
  const port = (server.address() as net.AddressInfo).port;
  const extras: net.Server[] = [];
  for (let n = 1; n < count; n++) {
    // As http.Server configures its own listening socket: half-open allowed (HTTP ends the response), no Nagle delay.
    const extra = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => server.emit("connection", socket));
    await listenOn(extra, { port, host: options.host, reusePort });
    extras.push(extra);
  }
  return {
    port,
    close(done) {
      let open = extras.length + 1;
      const closed = (): void => {
        open -= 1;
        if (open === 0) done();
      };
      for (const extra of extras) extra.close(closed);
      server.close(closed);
    },
  };
}

/** Listens on the port alone (no port sharing) and lets it go: the port, or EADDRINUSE when something holds it. */
async function claimAlone(port: number, host: string | undefined): Promise<number> {
  const probe = net.createServer();
  await listenOn(probe, { port, host });
  const claimed = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return claimed;
}

function listenOn(server: net.Server, options: net.ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
