// Structured logs (issue #17 item 2): one pino logger per process writing JSON lines to stdout; LOG_LEVEL
// sets the level. Never a secret: Authorization and Cookie headers are redacted wherever they appear, a
// request line carries the route template (never the raw path or query), and errors are logged by kind,
// code and stack (a driver's message may carry a host or a file path, not a secret we hold).
import { randomUUID } from "node:crypto";
import pino, { type DestinationStream, type Logger } from "pino";
import { operationsConfig } from "./config";

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

function loggerOptions(level: string) {
  return { level, base: { service: "agent-gate" }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label: string) => ({ level: label }) } };
}

/** A logger writing to `destination` (stdout by default). */
export function createLogger(destination?: DestinationStream, level: string = operationsConfig().LOG_LEVEL): Logger {
  return pino({ ...loggerOptions(level), redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination ?? sharedStdout());
}

/**
 * The logger of request lines: the same stream and level, without redaction — a request line is built here
 * from known fields only (never a header), and redaction on every request was a measurable share of a cheap one.
 */
function createRequestLogger(level: string = operationsConfig().LOG_LEVEL): Logger {
  return pino(loggerOptions(level), sharedStdout());
}

/** How long a buffered log line may wait before it is written, at most. */
const FLUSH_INTERVAL_MS = 250;

/**
 * stdout through a buffer written at most every FLUSH_INTERVAL_MS or 4 KiB: one write per request line was a
 * system call on every request's path (bench/README.md). Flushed synchronously when the process exits.
 */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // Not open yet, or stdout closed: the next interval tries again.
    }
  }, FLUSH_INTERVAL_MS).unref();
  process.once("exit", () => {
    try {
      stream.flushSync();
    } catch {
      // Nothing more can be written.
    }
  });
  return stream;
}

// On globalThis: Next bundles route modules (and the server entry) separately; all write through one stream.
const shared = globalThis as unknown as { agentGateLogger?: Logger; agentGateRequestLogger?: Logger; agentGateStdout?: DestinationStream };

function sharedStdout(): DestinationStream {
  shared.agentGateStdout ??= bufferedStdout();
  return shared.agentGateStdout;
}

export function logger(): Logger {
  shared.agentGateLogger ??= createLogger();
  return shared.agentGateLogger;
}

function requestLogger(): Logger {
  shared.agentGateRequestLogger ??= createRequestLogger();
  return shared.agentGateRequestLogger;
}

/** Replaces the process's logger, request lines included (tests capture lines with a stream of their own). */
export function setLogger(replacement: Logger | undefined): void {
  shared.agentGateLogger = replacement;
  shared.agentGateRequestLogger = replacement;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request id: the client's X-Request-Id when well-formed, else a new one. */
export function requestIdFrom(header: string | null | undefined): string {
  return typeof header === "string" && REQUEST_ID.test(header) ? header : randomUUID();
}

/** A route template never carries a query or fragment, whatever a caller passes. */
export function routeTemplate(template: string): string {
  const cut = template.search(/[?#]/);
  return cut === -1 ? template : template.slice(0, cut);
}

export interface RequestLogEntry {
  method: string;
  /** The route template ("/api/v1/members/[slug]"), never the raw path. */
  route: string;
  status: number;
  durationMs: number;
  requestId: string;
  clientIp: string;
}

/** One JSON line per request. */
export function requestLog(entry: RequestLogEntry, log: Logger = requestLogger()): void {
  const level = entry.status >= 500 ? "error" : "info";
  log[level](
    {
      type: "request",
      request_id: entry.requestId,
      method: entry.method,
      route: routeTemplate(entry.route),
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 1000) / 1000,
      client_ip: entry.clientIp,
    },
    "request",
  );
}

export type DelegationEvent = "registered" | "approved" | "denied" | "cancelled" | "token_issued" | "token_revoked" | "exchanged";

/** One line per delegation state change, by ids only (never a token, code or e-mail). */
export function delegationLog(event: DelegationEvent, ids: { registrationId?: string; memberId?: string }, log: Logger = logger()): void {
  log.info({ type: "delegation", event, registration_id: ids.registrationId, member_id: ids.memberId }, `delegation ${event}`);
}

/** One line per unexpected error, with its stack; `context` names where it happened. */
export function errorLog(error: unknown, context: string, log: Logger = logger()): void {
  const e = typeof error === "object" && error !== null ? (error as { name?: unknown; code?: unknown; stack?: unknown }) : {};
  log.error(
    {
      type: "error",
      context,
      error_name: typeof e.name === "string" ? e.name : typeof error,
      error_code: typeof e.code === "string" ? e.code : undefined,
      stack: typeof e.stack === "string" ? e.stack : undefined,
    },
    `error in ${context}`,
  );
}
