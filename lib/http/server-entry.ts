// Whether server.ts started this process, and whether a node:http listener observes every request. In lib/registry:
// Next bundles the server entry, instrumentation.ts and the route files apart, in one process.
// - server.ts's request listener (lib/server/request-listener.ts) stamps every request with the socket address
//   (PEER_HEADER), replacing any client-sent copy; under a bare `next start` nothing does, so that header is the
//   client's own and must not key a limit (./client-ip.ts).
// - The request's log line, X-Request-Id and metric sample are made where the request enters node:http: by server.ts's
//   listener, or under a bare `next start` by lib/server/request-channel.ts. Only where neither runs (a host that hands
//   Next its requests some other way) do the route files' wrapper and proxy.ts make them (./observe.ts).
import { processSingleton } from "@/lib/registry";

const entry = processSingleton("http.server-entry", () => ({ started: false, channelObserved: false }));

/** Called by server.ts before Next starts: from then on the peer header is this process's own stamp. */
export function markServerEntry(): void {
  entry.started = true;
}

/** Whether server.ts started this process (then it stamps socket addresses and mounts the front). */
export function startedByServerEntry(): boolean {
  return entry.started;
}

/** Called by lib/server/request-channel.ts as node:http publishes a request, before the request's handler runs. */
export function markChannelObserved(): void {
  entry.channelObserved = true;
}

/** Whether the request being answered was observed where it entered node:http (./observe.ts then makes nothing). */
export function observedAtListener(): boolean {
  return entry.started || entry.channelObserved;
}
