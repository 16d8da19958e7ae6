// Runs once when Next starts, whoever starts it (server.ts, a bare `next start`, `next dev`). Under server.ts
// the checks already ran before listening; otherwise refuse an unsafe start here (every problem at once, exit
// 1; lib/startup/preflight.ts), including a production start under TRUSTED_PROXY=none: without server.ts
// nothing stamps the socket address, so the peer header is ignored (lib/http/client-ip.ts). The server itself
// (socket-address stamp, node:http front, turns, checkpoint worker) is server.ts.
// Traces and pushed metrics (lib/tracing) start here in every start mode, and only when an OTLP endpoint is configured:
// otherwise nothing of the OpenTelemetry SDK is loaded.
// Without server.ts, each request's log line, X-Request-Id, metric sample and span are made as node:http receives it
// (lib/server/request-channel.ts), as server.ts's listener makes them under npm start.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { refuseUnsafeStart, startedByServerEntry } = await import("@/lib/startup");
    const serverEntry = startedByServerEntry();
    if (!serverEntry) await refuseUnsafeStart({ serverEntry: false });
    const { getConfig } = await import("@/lib/config");
    const tracing = getConfig().tracing;
    if (tracing.enabled) {
      // The route table names each request span (lib/tracing/sdk.ts), whichever copy of lib/ made it: the route its
      // log line and metrics name too.
      const [{ startTracing }, { routeOfTarget }] = await Promise.all([import("@/lib/tracing/sdk"), import("@/lib/routes")]);
      await startTracing(tracing, routeOfTarget);
    }
    const otlpMetrics = getConfig().otlpMetrics;
    if (otlpMetrics.enabled) {
      const { startOtlpMetrics } = await import("@/lib/tracing/metrics-sdk");
      await startOtlpMetrics(otlpMetrics);
    }
    if (!serverEntry) {
      const [{ observeRequestChannel }, { routeOfTarget }] = await Promise.all([import("@/lib/server/request-channel"), import("@/lib/routes")]);
      observeRequestChannel({ templateOf: (url) => routeOfTarget(url).route, traced: tracing.enabled });
    }
  }
}
