// The production server: `npm start` runs this file (bundled by `npm run build` into dist/server.mjs,
// scripts/build-server.ts). It is Next's documented custom server with one request listener in front:
//
//   socket → stamp the socket address → the node:http front (its paths) → turns → Next's handler
//
// (lib/server/request-listener.ts). A bare `next start` still serves the app, without this listener; on
// Vercel the route files answer everything. PORT (default 3000) and HOSTNAME (default all interfaces)
// choose where it listens; NODE_FRONT=off sends every request to Next.
import http from "node:http";
import { closeConnection, holdSqliteConnection } from "@/lib/db";
import { startSqliteCheckpointer } from "@/lib/db/sqlite-checkpointer";
import { sqliteFilePath } from "@/lib/db/sqlite-path";
import { serveFront } from "@/lib/routes/front";
import { addResponseHeaders } from "@/lib/server/front/node";
import { listen, LISTEN_SOCKETS } from "@/lib/server/listen";
import { requestListener } from "@/lib/server/request-listener";
import { turns } from "@/lib/server/turns";
import { startWebhookDelivery } from "@/lib/webhooks/delivery";
import { startJanitor } from "@/lib/operator/janitor";
import { errorLog, logger, outliveClosedLogPipes, routeConsoleToLog, startLogger } from "@/lib/observability/log";
import { observeRequest } from "@/lib/server/observe";
import { transportSecurityHeaders } from "@/lib/http/security-headers";
import { markServerEntry, refuseUnsafeStart } from "@/lib/startup";
import { Admission, admissionBounds, callerShare } from "@/lib/admission";
import { refusalSurface, writeBodyRefusal, writeShed, writeUnqueuedRefusal } from "@/lib/server/overload";
import { recordShed } from "@/lib/observability/metrics";
import { isStaticFilePath, resolveRoute, routeOfTarget } from "@/lib/routes";
import { pathOf } from "@/lib/http/api";
import { chargeInstanceBudget } from "@/lib/rate-limit";
import { BodyGate } from "@/lib/server/body-gate";
import { staticFiles } from "@/lib/server/static-files";
import { headerReader } from "@/lib/server/headers";
import { deriveCallerKey } from "@/lib/http/client-ip";
import { flushTraces, traceNodeRequest, tracingOn } from "@/lib/tracing";
import { flushMetrics } from "@/lib/tracing/metrics";
import { listenerIdentity } from "@/lib/agent-identity";
import { startSharedState, stopSharedState } from "@/lib/shared-state";

/** How long a shutdown waits for requests in flight before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  outliveClosedLogPipes();
  // Preflight before listen: every configuration problem at once (PORT and HOSTNAME included), an unmigrated
  // database (the embedded default migrates itself): exit 1 before a port is taken.
  const config = await refuseUnsafeStart();
  // From here every line is the logger's, Next's and the libraries' console output included.
  routeConsoleToLog();
  const { port, hostname } = config;

  // Before the first query opens the database, so the app connection knows a worker checkpoints for it.
  const checkpointer =
    config.databaseProvider === "sqlite"
      ? startSqliteCheckpointer(sqliteFilePath(config.databaseUrl), {
          holdConnection: holdSqliteConnection,
          onFailure: (what, message) => logger().error({ type: "sqlite_checkpoint_failed", what }, `SQLite checkpoint worker: ${what} failed: ${message}`),
        })
      : null;

  // The fleet's budgets and once-keys (lib/shared-state): Redis is connected before the first request (a store that does
  // not answer within 2 s starts degraded: this instance counts alone until it does, one warn line says so).
  await startSharedState();

  // Webhook delivery runs in this process (content/docs/webhooks.md); on Vercel the cron route and after() do.
  const webhooks = config.webhookDelivery ? startWebhookDelivery() : null;

  markServerEntry();
  // Loaded only after the preflight: a start that is refused never pays for loading Next.
  const { default: next } = await import("next");
  // "localhost", whatever HOSTNAME listens on: the name Next builds its own URLs with. Its router and proxy.ts's URLs must
  // agree on it, or proxy.ts's rewrite (a markdown twin) is taken for another origin and fetched over HTTP, back through
  // this listener: a second request, and a second log line.
  const app = next({ dev: false, dir: process.cwd(), hostname: "localhost", port });
  await app.prepare();
  // HSTS on every answer of an https deployment, the front's and Next's alike (next.config.ts's headers are fixed at build).
  const transportSecurity = transportSecurityHeaders(config.baseUrl);
  addResponseHeaders(transportSecurity);
  // One queue for the heavy work admission starts and the requests handed to Next: a few jobs per iteration, none
  // while connections are being accepted.
  const queue = turns();
  // Every class of work has its bounds (docs/limits.md): a burst is refused at once instead of piling up in memory,
  // and one caller key holds at most its share of each (a 429 past it).
  const limits = config.admission;
  const buildFiles = staticFiles();
  const admission = new Admission({
    bounds: admissionBounds(limits.lanes, limits.queueWaitMs, limits.callerShare),
    unqueuedPerCaller: callerShare(limits.lanes.general, limits.callerShare).inFlight,
    // The build's own static files are not counted (a page loads a dozen); probes and unknown static paths are.
    chargeUnqueued: (req, caller) => {
      const path = pathOf(req.url);
      return (isStaticFilePath(path) && !buildFiles.isMissing(path)) || chargeInstanceBudget("probes", caller);
    },
    heapShedShare: limits.heapShedShare,
    refuse: (req, res, workClass, reason) => {
      const surface = refusalSurface(req, routeOfTarget(req.url).refusal, workClass);
      if (workClass === null) writeUnqueuedRefusal(req, res, surface);
      else writeShed(req, res, surface, reason);
    },
    onShed: recordShed,
    onSingleCaller: (caller) =>
      logger().warn(
        { type: "single_caller", caller },
        `every request for 10 s came from one address (${caller}) and it was refused its share of a class of work; if a reverse proxy is in front, set TRUSTED_PROXY so each client gets its own share (docs/limits.md)`,
      ),
    pacer: queue,
  }).start();
  // A request holds no slot until its whole body has arrived, in time and at a minimum rate (lib/server/body-gate.ts).
  const deadlineSeconds = limits.requestDeadlineMs / 1000;
  const bodyGate = new BodyGate({
    bounds: {
      deadlineMs: limits.requestDeadlineMs,
      minBytesPerSecond: limits.minBytesPerSecond,
      graceMs: 2000,
      readers: limits.bodyReaders,
      bufferBytes: limits.bodyBufferBytes,
      callerShare: limits.callerShare,
    },
    refuse: (req, res, refusal) => {
      const route = routeOfTarget(req.url);
      recordShed(route.workClass ?? "unqueued", `body_${refusal}`);
      writeBodyRefusal(req, res, refusalSurface(req, route.refusal, route.workClass), refusal, route.bodyLimit, deadlineSeconds);
    },
  }).start();
  // Traces on: each request handed to Next runs in its request span, pages included (lib/tracing traceNodeRequest).
  const nextHandler = app.getRequestHandler();
  const handToNext: typeof nextHandler = tracingOn()
    ? (req, res, parsedUrl) => traceNodeRequest({ request: req, response: res }, () => nextHandler(req, res, parsedUrl))
    : nextHandler;
  const listener = requestListener(handToNext, {
    admission,
    // Every request this listener receives gets its one line and sample here, the listener's own refusals included; the
    // route files' wrapper and proxy.ts see that server.ts started the process and make none (lib/http/observe.ts).
    observe: (req, res) => observeRequest(req, res, routeOfTarget(req.url).route, { setHeader: false }),
    responseHeaders: transportSecurity,
    front: config.nodeFront ? serveFront : undefined,
    turns: queue,
    route: resolveRoute,
    callerOf: (req) => deriveCallerKey(headerReader(req)),
    // Issue 44: a signed public read or token request is verified once, here, when its agent's directory is cached (the
    // handlers read the stamp: registration, the claim poll and exchange binding, the budgets). Only a public read is
    // admitted under its verified origin's share; a token request keeps its address's.
    identify: (req, route) => {
      if (route.workClass !== "public" && route.workClass !== "token") return undefined;
      const found = listenerIdentity(req.method ?? "GET", req.url ?? "/", headerReader(req));
      return route.workClass === "public" ? found : found?.then((agent) => ({ stamp: agent.stamp, agentKey: null }));
    },
    bodyGate,
    missingStaticFile: buildFiles.answerMissing,
  });
  // Node's own deadlines for the headers and the whole request, checked every second (its default is every 30 s): a
  // client that misses them gets 408 and its connection closes, whoever is reading.
  const server = http.createServer({ headersTimeout: limits.requestDeadlineMs, requestTimeout: limits.requestDeadlineMs, connectionsCheckingInterval: 1000 }, listener);
  // Expect: 100-continue: the body gate says "continue" only once the body is known to fit (a 413 otherwise, unsent).
  server.on("checkContinue", listener);
  // The pacer starts heavy work only in iterations that accepted no connection (lib/admission/turn-queue.ts).
  server.on("connection", () => admission.noteConnection());
  // Bounded tables: the janitor's passes in this process (one instance at a time on PostgreSQL).
  const stopJanitor = config.janitor ? startJanitor() : null;

  // Several sockets on the port where the platform allows it (lib/server/listen.ts): connections are accepted that
  // many times as fast under load.
  const listening = await listen(server, { port, host: hostname, sockets: LISTEN_SOCKETS });

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger().info({ type: "shutdown", signal }, `${signal}: no new connections; finishing the requests in flight`);
    // Keep-alive connections are closed as soon as their request is answered; requests still running after
    // the grace period lose their connection.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    grace.unref();
    listening.close(() => {
      clearInterval(sweep);
      clearTimeout(grace);
      void (async () => {
        admission.stop();
        bodyGate.stop();
        await app.close();
        await webhooks?.stop();
        await stopJanitor?.();
        await checkpointer?.stop();
        await stopSharedState();
        await flushTraces();
        await flushMetrics();
        // Closing SQLite's connection copies the log into the database file.
        await closeConnection();
        process.exit(0);
      })().catch((error: unknown) => {
        errorLog(error, "shutdown");
        process.exit(1);
      });
    });
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  const url = `http://${hostname ?? "0.0.0.0"}:${listening.port}`;
  logger().info({ type: "listening", url, node_front: config.nodeFront }, `listening on ${url}${config.nodeFront ? "" : " (NODE_FRONT=off)"}`);
}

main().catch((error: unknown) => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  // Before the logger exists (no configuration yet) or after: the start's own synchronous one, out before the exit.
  startLogger().fatal(
    { type: "start_failed", error_name: error instanceof Error ? error.name : typeof error, error_code: typeof code === "string" ? code : undefined },
    `could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
