// A bare `next start` of this build (no server.ts: no body gate, no admission, no front), as on a plain Node host or
// Vercel, with its own throwaway database.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freshDatabase, ROOT } from "./databases";
import { freePort } from "./server";

export interface BareStart {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** A bare `next start` of this build (no server.ts), with its own database; TRUSTED_PROXY, NODE_ENV and any other variables as given. */
export async function bareNextStart(trustedProxy: string, nodeEnv: "production" | "test" = "production", env: Record<string, string> = {}): Promise<BareStart> {
  const port = await freePort();
  const databaseUrl = await freshDatabase(`bare-${trustedProxy}`);
  const url = `http://127.0.0.1:${port}`;
  // No -H: under `next start -H 127.0.0.1` Next names the host `localhost` in the proxy's URL but not where it checks a
  // rewrite's origin, so proxy.ts's rewrite to a markdown twin becomes a request it proxies to itself (docs/observability.md).
  const child = spawn(process.execPath, [path.join(ROOT, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port)], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: nodeEnv,
      NEXT_TELEMETRY_DISABLED: "1",
      BASE_URL: `http://localhost:${port}`,
      DATABASE_URL: databaseUrl,
      RELEASE_MODE: "public",
      TRUSTED_PROXY: trustedProxy,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, url, output: () => output, exited };
}

export async function stopBare(start: BareStart | undefined): Promise<void> {
  if (!start || start.child.exitCode !== null || start.child.signalCode !== null) return;
  start.child.kill("SIGTERM");
  const timer = setTimeout(() => start.child.kill("SIGKILL"), 5000);
  await start.exited;
  clearTimeout(timer);
}

/** Resolves once the bare server answers any request (instrumentation's start checks run before its first answer). */
export async function untilAnswering(start: BareStart, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(`${start.url}/api/health-probe-not-a-route`);
      return;
    } catch (error) {
      if (Date.now() > deadline || start.child.exitCode !== null) throw new Error(`next start did not answer: ${String(error)}\n${start.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
