// The observation server.ts's listener makes under `npm start` (./observe.ts: one log line and metric sample per
// request with its final status, X-Request-Id on the answer; the request's SERVER span when traces are on), made
// where no listener of ours is in front: a bare `next start`. instrumentation.ts subscribes it to node:http's
// `http.server.request.start` diagnostics channel (Node's documented hook for observers), which node:http publishes
// for every request just before the server's listener runs: pages included, whose status (a notFound(), a redirect())
// only the response knows once sent. Any host that hands Next its requests through a node:http server is covered the
// same way; where none does, the route files' wrapper and proxy.ts observe instead (lib/http/observe.ts).
//   observeRequestChannel({ templateOf: (url) => routeOfTarget(url).route, traced: getConfig().tracing.enabled });
// The route template comes from the route table (lib/routes, passed in: this layer does not import it).
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import { markChannelObserved } from "@/lib/http/server-entry";
import { errorLog } from "@/lib/observability/log";
import { attachNodeRequestSpan } from "@/lib/tracing";
import { observeRequest } from "./observe";

/** What node:http publishes on `http.server.request.start`. */
interface RequestStart {
  request: IncomingMessage;
  response: ServerResponse;
}

let subscribed = false;

/** Observes every request node:http receives in this process from now on (once per process). */
export function observeRequestChannel(options: { templateOf: (url: string | undefined) => string; traced: boolean }): void {
  if (subscribed) return;
  subscribed = true;
  subscribe("http.server.request.start", (message) => {
    const { request, response } = message as RequestStart;
    markChannelObserved();
    // Node rethrows a subscriber's error as an uncaught exception: no fault in observing may end the process (the
    // request then has no line; the error has one).
    try {
      observeRequest(request, response, options.templateOf(request.url));
      if (options.traced) attachNodeRequestSpan({ request, response });
    } catch (error) {
      errorLog(error, "request observation");
    }
  });
}
