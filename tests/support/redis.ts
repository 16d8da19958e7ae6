// A real Redis for the tests (issue 50): Debian's redis-server (README's test line and .ci/run install it), started
// here on a free port as a child process with no persistence, stopped and started again on the same port to play an
// outage. The tests that need it fail with this message when it is missing, never skip.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { freePort } from "./server";

const CANDIDATES = ["/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"];

/** The redis-server binary, or an error saying how to install it. */
export function redisServerBinary(): string {
  const found = CANDIDATES.find((file) => fs.existsSync(file)) ?? spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).stdout.trim();
  if (!found) throw new Error("redis-server is not installed: apt-get install -y redis-server (README's test command line installs it)");
  return found;
}

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: an outage, not a shutdown); the port stays this server's. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  restart(): Promise<void>;
  /** Sends one command and returns the raw reply (e.g. CLIENT PAUSE 3000 ALL). */
  command(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** One RESP command over a fresh connection; resolves with the raw reply text. */
function sendCommand(port: number, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let reply = "";
    const timer = setTimeout(() => socket.destroy(new Error("no reply within 2 s")), 2000);
    socket.on("connect", () => socket.write(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join("")}`));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.endsWith("\r\n")) {
        clearTimeout(timer);
        socket.end();
        resolve(reply.trim());
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

export async function startRedis(): Promise<TestRedis> {
  const binary = redisServerBinary();
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"], { stdio: "ignore" });
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}) on port ${port}`);
      if ((await sendCommand(port, ["PING"]).catch(() => "")) === "+PONG") return;
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await launch();
  return { url: `redis://127.0.0.1:${port}`, port, kill, restart: launch, command: (...args) => sendCommand(port, args), stop: kill };
}
