// Whether server.ts started this process. Its request listener (lib/server/request-listener.ts) stamps every
// request with the socket address (PEER_HEADER), replacing any client-sent copy; under a bare `next start`
// nothing does, so that header is the client's own and must not key a limit (./client-ip.ts). In lib/registry:
// Next bundles the server entry and the route files apart, in one process.
import { processSingleton } from "@/lib/registry";

const entry = processSingleton("http.server-entry", () => ({ started: false }));

/** Called by server.ts before Next starts: from then on the peer header is this process's own stamp. */
export function markServerEntry(): void {
  entry.started = true;
}

/** Whether server.ts started this process (then it stamps socket addresses and mounts the front). */
export function startedByServerEntry(): boolean {
  return entry.started;
}
