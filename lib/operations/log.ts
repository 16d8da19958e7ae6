// Structured logs (issue #17 item 2): one pino logger per process writing JSON lines to stdout; LOG_LEVEL
// sets the level. Never a secret: Authorization and Cookie headers are redacted wherever they appear, a
// request line carries the route template (never the raw path or query), and errors are logged by kind,
// code and stack (a driver's message may carry a host or a file path, not a secret we hold).
import { randomUUID } from "node:crypto";
import pino, { type DestinationStream, type Logger } from "pino";
import { operationsConfig } from "@/lib/config/operations";

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

const SERVICE = "agent-gate";

function loggerOptions(level: string) {
  return { level, base: { service: SERVICE }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label: string) => ({ level: label }) } };
}

/**
 * The stream of each logger made here: their lines have the layout of loggerOptions, so a request line can be
 * written to it directly, serialised by hand (requestLog), in the very bytes pino would write.
 */
const streamsOfOurLoggers = new WeakMap<Logger, DestinationStream>();

/** A logger writing to `destination` (stdout by default). */
export function createLogger(destination?: DestinationStream, level: string = operationsConfig().LOG_LEVEL): Logger {
  const stream = destination ?? sharedStdout();
  const log = pino({ ...loggerOptions(level), redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, stream);
  streamsOfOurLoggers.set(log, stream);
  return log;
}

/** The logger of request lines: the same stream and level. Its lines are serialised by requestLog, not by pino. */
function createRequestLogger(level: string = operationsConfig().LOG_LEVEL): Logger {
  const stream = sharedStdout();
  const log = pino(loggerOptions(level), stream);
  streamsOfOurLoggers.set(log, stream);
  return log;
}

/** How long a buffered log line may wait before it is written, at most. */
const FLUSH_INTERVAL_MS = 250;
/** Lines are handed to the file descriptor in chunks of about this many characters. */
const CHUNK_CHARS = 16 * 1024;

/**
 * Whole lines collected in an array and handed to pino's destination (sonic-boom) joined, one chunk per 16 KiB
 * or per FLUSH_INTERVAL_MS. Writing each line to sonic-boom itself cost a few microseconds per line: it
 * measures the byte length of its whole pending buffer on every write, a string it grows by concatenation, so
 * each line re-flattened up to 16 KiB (bench/README.md, sixth pass). One write per request line would be a
 * system call on every request's path.
 */
export class LineBatch implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly target: { write(chunk: string): unknown; flush?(done: (error?: Error) => void): void; flushSync?(): void },
    private readonly chunkChars = CHUNK_CHARS,
  ) {}

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.chunkChars) this.flush();
  }

  /** Hands the collected lines to the target as one chunk; `done` (pino's logger.flush) once the target has them. */
  flush(done?: (error?: Error) => void): void {
    if (this.lines.length > 0) {
      const chunk = this.lines.length === 1 ? this.lines[0]! : this.lines.join("");
      this.lines = [];
      this.chars = 0;
      this.target.write(chunk);
    }
    if (!done) return;
    if (this.target.flush) this.target.flush(done);
    else done();
  }

  /** Writes everything now (process exit). */
  flushSync(): void {
    this.flush();
    this.target.flushSync?.();
  }
}

/** What sonic-boom may hold for a stdout that does not take it (a closed pipe): later lines are dropped. */
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

/** stdout through a LineBatch, flushed every FLUSH_INTERVAL_MS and synchronously when the process exits. */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, maxLength: UNWRITTEN_LOG_LIMIT });
  // A failed write (EPIPE) is retried with the next line, at most UNWRITTEN_LOG_LIMIT held (see outliveClosedLogPipes).
  stream.on("error", () => undefined);
  const batch = new LineBatch(stream);
  setInterval(() => {
    try {
      batch.flush();
    } catch {
      // Not open yet, or stdout closed: the next interval tries again.
    }
  }, FLUSH_INTERVAL_MS).unref();
  process.once("exit", () => {
    try {
      batch.flushSync();
    } catch {
      // Nothing more can be written.
    }
  });
  return batch;
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
  const query = template.indexOf("?");
  const fragment = template.indexOf("#");
  const cut = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
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

let isoMillisecond = Number.NaN;
let isoText = "";

/**
 * pino.stdTimeFunctions.isoTime's text, made once per millisecond rather than once per line.
 */
function isoTimeNow(): string {
  const now = Date.now();
  if (now !== isoMillisecond) {
    isoMillisecond = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/**
 * The request line as pino writes it for loggerOptions (same keys, order and values; tested against pino's own
 * output), built as one template string: pino's generic path (object walk, per-value stringify, level formatter,
 * a new Date per line) was the largest share of a request's observation cost (bench/README.md, sixth pass).
 */
export function requestLine(level: "info" | "error", entry: RequestLogEntry, time: string = isoTimeNow()): string {
  const duration = Math.round(entry.durationMs * 1000) / 1000;
  return (
    `{"level":"${level}","time":"${time}","service":"${SERVICE}","type":"request","request_id":${JSON.stringify(entry.requestId)},` +
    `"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(routeTemplate(entry.route))},"status":${entry.status},` +
    `"duration_ms":${Number.isFinite(duration) ? duration : "null"},"client_ip":${JSON.stringify(entry.clientIp)},"msg":"request"}\n`
  );
}

/** One JSON line per request. */
export function requestLog(entry: RequestLogEntry, log: Logger = requestLogger()): void {
  const level = entry.status >= 500 ? "error" : "info";
  if (!log.isLevelEnabled(level)) return;
  const stream = streamsOfOurLoggers.get(log);
  if (stream) {
    stream.write(requestLine(level, entry));
    return;
  }
  // Any other logger: its own layout, through pino.
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
