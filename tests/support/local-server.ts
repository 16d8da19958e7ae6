// A node:http server of a unit test on a free loopback port, and a client that leaves before its answer.
import type http from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on a free port of 127.0.0.1; resolves with the server's base URL. */
export async function listenLocally(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Sends a request and leaves before its answer (the server sees the connection close first). */
export async function leaveBeforeAnswer(url: string): Promise<void> {
  const gone = new AbortController();
  const pending = fetch(url, { signal: gone.signal }).catch(() => null);
  await new Promise((resolve) => setTimeout(resolve, 100));
  gone.abort();
  await pending;
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Closes the server and every connection it still holds. */
export async function closeLocally(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
