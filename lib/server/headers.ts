// A node:http request's headers as a HeaderReader (lib/http/api.ts), for whatever reads them by name: the front's
// handlers, the caller key, the agent-identity check and the log line.
import type { IncomingMessage } from "node:http";
import type { HeaderReader } from "@/lib/http/api";
import { PEER_HEADER } from "@/lib/http/client-ip";

/**
 * The request's headers by case-insensitive name, repeated headers joined with ", ". The peer stamp, before
 * server.ts's listener has made it (a server that only observes, as the request channel's), is the socket's address:
 * lib/http/client-ip.ts believes it only where server.ts started the process, which always stamps first.
 */
export function headerReader(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const key = name.toLowerCase();
      const value = req.headers[key];
      if (value === undefined) return key === PEER_HEADER ? (req.socket?.remoteAddress ?? null) : null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
