// Starts the built app exactly as `npm start` does (scripts/start.sh: the heap sized from the process's memory, then
// dist/server.mjs, with no flags of the tests' own) on a free port with its own throwaway database.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { freshDatabase, ROOT } from "./databases";

export interface TestServer {
  baseUrl: string;
  databaseUrl: string;
  port: number;
  /** The server process's id (to read its /proc entries). */
  pid: number;
  /** Everything the server printed, stdout and stderr as they came (for assertions on start-up failures). */
  output(): string;
  /** What the server wrote on stdout alone (its log). */
  stdout(): string;
  /** What the server wrote on stderr alone. */
  stderr(): string;
  /** The process's exit code once it has exited (null while running or when ended by a signal). */
  exitCode(): number | null;
  stop(): Promise<void>;
  /** SIGKILL: the process dies at once, as in a crash (no shutdown work). */
  kill(): Promise<void>;
  /** Closes the read ends of the server's stdout and stderr, as a log reader that exits does (EPIPE for the server). */
  closeOutput(): void;
  /** Stops reading the server's stdout, as a log reader that falls behind does: the pipe fills and the server's log writes wait. */
  pauseOutput(): void;
  /** Reads the server's stdout again after pauseOutput(). */
  resumeOutput(): void;
}

export interface StartOptions {
  /** Extra environment, e.g. { RELEASE_MODE: "private" }. */
  env?: Record<string, string>;
  /** Use this DATABASE_URL instead of a fresh copy of the template. */
  databaseUrl?: string;
  label?: string;
  /** Resolve once the process exits instead of waiting for it to answer (start-up failure tests). */
  expectExit?: boolean;
  /**
   * The tests' own options, as command-line flags of the server (lib/config/test-options.ts: `--test-webhook-poll-ms=200`
   * …): what no operator sets, so never environment variables.
   */
  testFlags?: string[];
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The bundled custom server (server.ts), written by `npm run build`. */
export const SERVER_ENTRY = path.join(ROOT, "dist", "server.mjs");
/** What `npm start` runs (package.json "start"); it execs node, so the child's pid is the server's. */
export const START_SCRIPT = path.join(ROOT, "scripts", "start.sh");

function assertBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, ".next", "BUILD_ID")) || !fs.existsSync(SERVER_ENTRY)) {
    throw new Error("No production build found: run `npm run build` first (npm test does it for you).");
  }
}

/**
 * One GET to a path that does not exist, answered in full within 2 s. node:http with its own timer:
 * a fetch() bounded by AbortSignal.timeout(2000) was seen here to hang for a minute, never aborted.
 */
function probe(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/api/health-probe-not-a-route", agent: false }, (res) => {
      res.resume();
      res.on("end", () => {
        clearTimeout(timer);
        resolve();
      });
      res.on("error", reject);
    });
    const timer = setTimeout(() => req.destroy(new Error("no complete answer within 2 s")), 2000);
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Whether the server's log has its `listening` line. */
function saysItListens(stdout: string): boolean {
  return stdout.split("\n").some((line) => line.startsWith("{") && line.includes('"type":"listening"'));
}

/** The port freePort() chose was taken before this server could listen on it (by another test file's server). */
class PortTakenError extends Error {}

/**
 * Starts the production server on a free port. freePort() releases the port before the server takes it, so a server
 * started by another test file at the same moment can take it first: this one then exits with EADDRINUSE (while the
 * other answers on the port) and is started again on a new port.
 */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce(options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 3) throw error;
    }
  }
}

async function startServerOnce(options: StartOptions): Promise<TestServer> {
  assertBuilt();
  const port = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const databaseUrl = options.databaseUrl ?? (await freshDatabase(options.label ?? "server"));
  let output = "";
  let stdout = "";
  let stderr = "";
  const child: ChildProcess = spawn("sh", [START_SCRIPT, ...(options.testFlags ?? [])], {
    cwd: ROOT,
    env: {
      ...process.env,
      // The start script runs the first `node` on PATH: the one running these tests.
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
      NODE_ENV: "production",
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      NEXT_TELEMETRY_DISABLED: "1",
      BASE_URL: baseUrl,
      DATABASE_URL: databaseUrl,
      RELEASE_MODE: "public",
      TRUSTED_PROXY: "none",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGKILL");
    await exited;
  };
  const closeOutput = (): void => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  const pauseOutput = (): void => void child.stdout?.pause();
  const resumeOutput = (): void => void child.stdout?.resume();
  const server: TestServer = {
    baseUrl,
    databaseUrl,
    port,
    pid: child.pid!,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exitCode: () => child.exitCode,
    stop,
    kill,
    closeOutput,
    pauseOutput,
    resumeOutput,
  };

  if (options.expectExit) {
    const timeout = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(timeout);
    return server;
  }
  // One overall deadline, well inside Vitest's 120 s hook timeout, so a start that never answers fails with
  // the server's output and the last probe error instead of a bare hook timeout.
  const started = Date.now();
  let lastProbe = "none yet";
  let deadlineTimer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<never>((_resolve, reject) => {
    deadlineTimer = setTimeout(() => reject(new Error(`the server on port ${port} did not answer within 60 s (last probe: ${lastProbe}):\n${output}`)), 60_000);
  });
  const answering = (async () => {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        const message = `the server exited early (${child.exitCode ?? child.signalCode}):\n${output}`;
        throw output.includes("EADDRINUSE") ? new PortTakenError(message) : new Error(message);
      }
      try {
        await probe(port);
        // An answer proves only that something listens on the port: this server says when it is the one.
        if (!saysItListens(stdout)) throw new Error("the port answers, but this server has not said it listens");
        return;
      } catch (error) {
        lastProbe = `${(error as Error).message} after ${Date.now() - started} ms`;
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  })();
  answering.catch(() => undefined); // after giving up, the loop ends by itself once the stopped child has exited
  try {
    await Promise.race([answering, giveUp]);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(deadlineTimer);
  }
  return server;
}
