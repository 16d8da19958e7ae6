// Structured logs (issue #17 item 2): one pino logger per process writing JSON lines to stdout; LOG_LEVEL
// sets the level. Never a secret: Authorization and Cookie headers are redacted wherever they appear, a
// request line carries the route template (never the raw path or query), and errors are logged by kind,
// code and stack (a driver's message may carry a host or a file path, not a secret we hold).
import { randomUUID } from "node:crypto";
import { format, stripVTControlCharacters } from "node:util";
import pino, { type DestinationStream, type Logger } from "pino";
import { getConfig } from "@/lib/config";
import { activeTraceId } from "@/lib/tracing";
import { processSingleton } from "@/lib/registry";

export const REDACTED_PATHS = [
  "authorization",
  "cookie",
  "headers.authorization",
  "headers.cookie",
  'headers["set-cookie"]',
  "req.headers.authorization",
  "req.headers.cookie",
  "request.headers.authorization",
  "request.headers.cookie",
];

/** A logger writing to `destination` (the process's stdout by default). */
export function createLogger(destination: DestinationStream = sharedStdout(), level: string = getConfig().operations.logLevel): Logger {
  return pino(
    {
      level,
      base: { service: "agent-gate" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    },
    destination,
  );
}

/**
 * What the destination may hold for a stdout that does not take it (a closed pipe, or a reader that falls behind on a
 * saturated machine): later lines are dropped, counted, and reported once the reader has caught up.
 */
const UNWRITTEN_LOG_LIMIT = 4 * 1024 * 1024;

/**
 * A log reader that went away (EPIPE on stdout or stderr: the process the pipe led to exited) must not turn each
 * later line into an uncaught exception whose report is itself a line: the process would spin on that forever and
 * never finish a shutdown. Write errors on the process's own output streams are dropped; the server goes on serving.
 * Called once by the server entry.
 */
export function outliveClosedLogPipes(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
}

// In lib/registry: Next bundles route modules (and the server entry) separately; all write through one stream.
const shared = processSingleton<{ agentGateLogger?: Logger; agentGateStdout?: DestinationStream; agentGateDroppedLogLines?: number }>("operations.log", () => ({}));

/** Log lines dropped by this process so far because its log reader did not take them (agent_gate_log_lines_dropped_total). */
export function droppedLogLines(): number {
  return shared.agentGateDroppedLogLines ?? 0;
}

/** The events of pino's asynchronous destination (sonic-boom) that tell of dropped lines and of a caught-up reader. */
export interface DroppingDestination {
  on(event: "drop" | "drain", listener: () => void): unknown;
}

/**
 * Counts the lines `destination` drops (each pino write is one line) and, once everything it held has been written,
 * logs one warning with how many were lost since the last such warning: a gap in the log is never silent.
 */
export function reportDroppedLines(destination: DroppingDestination, log: () => Logger = logger): void {
  let unreported = 0;
  // Emitted inside the dropped write: only counted here, never logged (that write would be dropped in turn).
  destination.on("drop", () => {
    unreported += 1;
    shared.agentGateDroppedLogLines = droppedLogLines() + 1;
  });
  destination.on("drain", () => {
    if (unreported === 0) return;
    const dropped = unreported;
    unreported = 0;
    log().warn({ type: "log_lines_dropped", dropped }, `${dropped} log lines dropped: the log reader did not keep up`);
  });
}

/**
 * stdout through pino's asynchronous destination, so that no request waits on a write to the log reader (lines
 * logged while a write is under way follow it in one write). pino itself writes what it still holds, synchronously,
 * when the process exits.
 */
function asyncStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, maxLength: UNWRITTEN_LOG_LIMIT });
  // A failed write (EPIPE) must not become an uncaught exception (see outliveClosedLogPipes).
  stream.on("error", () => undefined);
  reportDroppedLines(stream);
  return stream;
}

function sharedStdout(): DestinationStream {
  shared.agentGateStdout ??= asyncStdout();
  return shared.agentGateStdout;
}

export function logger(): Logger {
  shared.agentGateLogger ??= createLogger();
  return shared.agentGateLogger;
}

/**
 * The logger of the start's own lines, written before the configuration (and so LOG_LEVEL) is known: a refused start's
 * problems, the start's news. Synchronous, so a refusal's lines are out before the process exits; at level info, so a
 * refusal is never silenced by the LOG_LEVEL it may be refusing.
 */
export function startLogger(): Logger {
  return createLogger(pino.destination({ dest: 1, sync: true }), "info");
}

/**
 * Under `npm start` the process is ours: what Next and the libraries write through `console` (Next's start-up notes,
 * its report of a page that failed to render, a library's warning) becomes one JSON line each (`type: "console"`, the
 * text as `msg`), so that every line the process writes is a JSON line. Called once by server.ts, after the start's
 * checks (the level is the configuration's) and before Next loads. The app's own code never calls `console`
 * (tests/unit/one-log-format.test.ts).
 */
export function routeConsoleToLog(): void {
  const line =
    (level: "debug" | "info" | "warn" | "error") =>
    (...args: unknown[]): void =>
      logger()[level]({ type: "console" }, stripVTControlCharacters(format(...args)));
  console.debug = line("debug");
  console.log = line("info");
  console.info = line("info");
  console.warn = line("warn");
  console.error = line("error");
  console.trace = (...args: unknown[]): void => logger().error({ type: "console", stack: new Error().stack }, stripVTControlCharacters(format(...args)));
}

/** Replaces the process's logger (tests capture lines with a stream of their own). */
export function setLogger(replacement: Logger | undefined): void {
  shared.agentGateLogger = replacement;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request id: the client's X-Request-Id when well-formed, else a new one. */
export function requestIdFrom(header: string | null | undefined): string {
  return typeof header === "string" && REQUEST_ID.test(header) ? header : randomUUID();
}

export interface RequestLogEntry {
  method: string;
  /** The route template (lib/routes resolveRoute: "/members/[slug]"), never the raw path. */
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  clientIp: string;
  /** The trace id of the request's span when traces are on (lib/tracing); else the span in scope's, if any. */
  traceId?: string;
}

/** One JSON line per request. */
export function requestLog(entry: RequestLogEntry, log: Logger = logger()): void {
  log[entry.status >= 500 ? "error" : "info"](
    {
      type: "request",
      request_id: entry.requestId,
      method: entry.method,
      route: entry.route,
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 1000) / 1000,
      client_ip: entry.clientIp,
      // Only when traces are on (pino leaves an undefined field out of the line).
      trace_id: entry.traceId ?? activeTraceId(),
    },
    "request",
  );
}

export type DelegationEvent = "registered" | "approved" | "denied" | "cancelled" | "token_issued" | "token_revoked" | "exchanged";

/** One line per delegation state change, by ids only (never a token, code or e-mail). */
export function delegationLog(event: DelegationEvent, ids: { registrationId?: string; memberId?: string }, log: Logger = logger()): void {
  log.info({ type: "delegation", event, registration_id: ids.registrationId, member_id: ids.memberId }, `delegation ${event}`);
}

/**
 * One line per unexpected error, with its stack; `context` names where it happened. What has no stack (a JSON-RPC
 * error object a library answered with, a thrown string) gives its message instead, cut short.
 */
export function errorLog(error: unknown, context: string, log: Logger = logger()): void {
  const e = typeof error === "object" && error !== null ? (error as { name?: unknown; code?: unknown; stack?: unknown; message?: unknown }) : {};
  const stack = typeof e.stack === "string" ? e.stack : undefined;
  const message = typeof error === "string" ? error : typeof e.message === "string" ? e.message : undefined;
  log.error(
    {
      type: "error",
      context,
      error_name: typeof e.name === "string" ? e.name : typeof error,
      error_code: typeof e.code === "string" || typeof e.code === "number" ? String(e.code) : undefined,
      stack,
      error_message: stack === undefined && message !== undefined ? message.slice(0, 300) : undefined,
    },
    `error in ${context}`,
  );
}
