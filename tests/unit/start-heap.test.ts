// Issue 17 item 9: `npm start` runs the server with a heap sized for this service (package.json "start" puts the
// V8 heap flags in NODE_OPTIONS), and an operator's own NODE_OPTIONS still overrides them. The start script runs
// here exactly as npm runs it (sh -c), with only the entry swapped for a probe that reports the heap V8 got.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, TMP } from "../support/databases";

const ENTRY = "dist/server.mjs";
const startScript = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start!;

/** The value of one `--flag=N` in the start script, or null. */
function flag(name: string): number | null {
  const match = new RegExp(`--${name}=(\\d+)`).exec(startScript);
  return match ? Number(match[1]) : null;
}

interface Probe {
  heapLimitMiB: number;
  mallocArenaMax: string | null;
  nodeEnv: string;
  nodeOptions: string;
}

/** Runs the start script with the probe in place of the server entry, with `env` on top of a clean base. */
function runStart(env: Record<string, string>): Probe {
  fs.mkdirSync(TMP, { recursive: true });
  const probe = path.join(TMP, "start-heap-probe.cjs");
  fs.writeFileSync(
    probe,
    'process.stdout.write(JSON.stringify({ heapLimitMiB: require("node:v8").getHeapStatistics().heap_size_limit / 1048576, mallocArenaMax: process.env.MALLOC_ARENA_MAX ?? null, nodeEnv: process.env.NODE_ENV, nodeOptions: process.env.NODE_OPTIONS ?? "" }));\n',
  );
  const command = startScript.replace(ENTRY, JSON.stringify(probe));
  const result = spawnSync("sh", ["-c", command], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", NODE_ENV: "development", ...env },
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Probe;
}

describe("npm start's heap", () => {
  it("runs the server entry with the old-space and semi-space caps in NODE_OPTIONS", () => {
    expect(startScript).toContain(ENTRY);
    expect(startScript).toMatch(/NODE_OPTIONS="[^"]*--max-old-space-size=\d+[^"]*\$\{?NODE_OPTIONS/);
    expect(flag("max-old-space-size")).not.toBeNull();
    expect(flag("max-semi-space-size")).not.toBeNull();
  });

  it("gives V8 the heap the flags name (old space plus the young generation's semi-spaces), not its default of gigabytes", () => {
    const probe = runStart({});
    const oldSpace = flag("max-old-space-size")!;
    const semiSpace = flag("max-semi-space-size")!;
    expect(probe.nodeEnv).toBe("production");
    expect(probe.heapLimitMiB).toBeGreaterThanOrEqual(oldSpace);
    // V8 adds the young generation to the limit: at most three semi-spaces (two plus the new large-object space).
    expect(probe.heapLimitMiB).toBeLessThanOrEqual(oldSpace + 3 * semiSpace + 1);
  });

  it("lets the operator's NODE_OPTIONS override the caps and keeps the operator's other options", () => {
    const probe = runStart({ NODE_OPTIONS: "--max-old-space-size=512 --stack-trace-limit=25" });
    expect(probe.heapLimitMiB).toBeGreaterThanOrEqual(512);
    expect(probe.nodeOptions).toContain("--stack-trace-limit=25");
  });

  // bench/README.md "Seventh pass": glibc gives each thread that mallocs an arena of its own (up to 8 per core); two
  // keep Node 24 under the mixed load's 250 MiB line. The operator's own value wins.
  it("caps glibc's malloc arenas at two unless the operator sets MALLOC_ARENA_MAX", () => {
    expect(runStart({}).mallocArenaMax).toBe("2");
    expect(runStart({ MALLOC_ARENA_MAX: "8" }).mallocArenaMax).toBe("8");
  });
});
