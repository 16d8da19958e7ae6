// Issue 32 item 1: `npm start` sizes V8's heap from the memory the process is given (a cgroup limit, else a
// documented default), never a fixed small cap, and an operator's own NODE_OPTIONS still wins. The policy is tested
// as a function; the launcher (scripts/start.sh) runs here exactly as npm runs it, from a copy of the project whose
// dist/server.mjs is a probe that reports what it got.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { DEFAULT_OLD_SPACE_MIB, heapFlags, memoryLimitBytes, MIN_OLD_SPACE_MIB, oldSpaceMiB, SEMI_SPACE_MIB } from "@/lib/startup/heap";
import { ROOT, TMP } from "../support/databases";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe("the heap policy", () => {
  it("takes 70 % of a cgroup limit for the old space", () => {
    expect(oldSpaceMiB(1 * GiB, 24 * GiB)).toBe(716);
    expect(oldSpaceMiB(2 * GiB, 24 * GiB)).toBe(1433);
    expect(heapFlags({ constrainedBytes: 1 * GiB, totalBytes: 24 * GiB, nodeOptions: undefined })).toEqual(["--max-old-space-size=716", `--max-semi-space-size=${SEMI_SPACE_MIB}`]);
  });

  it("uses the documented default without a limit, and never more than 70 % of a small machine", () => {
    expect(oldSpaceMiB(null, 24 * GiB)).toBe(DEFAULT_OLD_SPACE_MIB);
    expect(oldSpaceMiB(null, 1 * GiB)).toBe(716);
  });

  it("never goes below the floor the server needs to start", () => {
    expect(oldSpaceMiB(128 * MiB, 24 * GiB)).toBe(MIN_OLD_SPACE_MIB);
  });

  it("reads no limit from what cgroups and Node report when there is none", () => {
    for (const constrainedBytes of [undefined, 0, Number.NaN, 2 ** 64, 9223372036854771712, 24 * GiB])
      expect(memoryLimitBytes({ constrainedBytes, totalBytes: 24 * GiB })).toBeNull();
    expect(memoryLimitBytes({ constrainedBytes: 512 * MiB, totalBytes: 24 * GiB })).toBe(512 * MiB);
  });

  it("leaves a flag the operator set in NODE_OPTIONS to the operator (either spelling)", () => {
    expect(heapFlags({ constrainedBytes: undefined, totalBytes: 24 * GiB, nodeOptions: "--max-old-space-size=300" })).toEqual([`--max-semi-space-size=${SEMI_SPACE_MIB}`]);
    expect(heapFlags({ constrainedBytes: undefined, totalBytes: 24 * GiB, nodeOptions: "--trace-gc --max_old_space_size 300" })).toEqual([
      `--max-semi-space-size=${SEMI_SPACE_MIB}`,
    ]);
    expect(heapFlags({ constrainedBytes: undefined, totalBytes: 24 * GiB, nodeOptions: "--max-semi-space-size=4 --max-old-space-size=300" })).toEqual([]);
    // A different flag with the same prefix is not the operator's choice of old space.
    expect(heapFlags({ constrainedBytes: undefined, totalBytes: 24 * GiB, nodeOptions: "--max-old-space-size-x=3" })[0]).toBe(`--max-old-space-size=${DEFAULT_OLD_SPACE_MIB}`);
  });
});

interface Probe {
  heapLimitMiB: number;
  mallocArenaMax: string | null;
  nodeEnv: string;
  nodeOptions: string;
  execArgv: string[];
  sourceMapsEnabled: boolean;
}

const startScript = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start!;

/** A copy of the launcher with the real heap-flags entry (bundled here) and a probe in place of the server. */
function launcherCopy(): string {
  const dir = path.join(TMP, "start-heap");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "scripts"), { recursive: true });
  fs.mkdirSync(path.join(dir, "dist"), { recursive: true });
  fs.copyFileSync(path.join(ROOT, "scripts", "start.sh"), path.join(dir, "scripts", "start.sh"));
  buildSync({
    absWorkingDir: ROOT,
    entryPoints: [path.join(ROOT, "scripts", "heap-flags.ts")],
    outfile: path.join(dir, "dist", "heap-flags.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "warning",
  });
  fs.writeFileSync(
    path.join(dir, "dist", "server.mjs"),
    'import v8 from "node:v8";\nprocess.stdout.write(JSON.stringify({ heapLimitMiB: v8.getHeapStatistics().heap_size_limit / 1048576, mallocArenaMax: process.env.MALLOC_ARENA_MAX ?? null, nodeEnv: process.env.NODE_ENV, nodeOptions: process.env.NODE_OPTIONS ?? "", execArgv: process.execArgv, sourceMapsEnabled: process.sourceMapsEnabled }));\n',
  );
  return dir;
}

function runStart(env: Record<string, string>): Probe {
  const dir = launcherCopy();
  const result = spawnSync("sh", ["-c", startScript], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH!}`, HOME: process.env.HOME ?? "/tmp", NODE_ENV: "development", ...env },
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Probe;
}

describe("npm start", () => {
  it("runs scripts/start.sh, which runs the built server", () => {
    expect(startScript).toBe("sh scripts/start.sh");
    expect(fs.readFileSync(path.join(ROOT, "scripts", "start.sh"), "utf8")).toMatch(/exec node \$HEAP_FLAGS dist\/server\.mjs/);
  });

  it("gives V8 the sized heap (old space plus the young generation), not a fixed cap, in production mode", () => {
    const probe = runStart({});
    const oldSpace = Number(/--max-old-space-size=(\d+)/.exec(probe.execArgv.join(" "))?.[1]);
    expect(oldSpace).toBeGreaterThanOrEqual(MIN_OLD_SPACE_MIB);
    expect(oldSpace).not.toBe(128);
    expect(probe.nodeEnv).toBe("production");
    expect(probe.heapLimitMiB).toBeGreaterThanOrEqual(oldSpace);
    // V8 adds the young generation to the limit: at most three semi-spaces (two plus the new large-object space).
    expect(probe.heapLimitMiB).toBeLessThanOrEqual(oldSpace + 3 * SEMI_SPACE_MIB + 1);
    // As `next start`: no source maps unless the operator asks (each loaded chunk's map would stay resident).
    expect(probe.sourceMapsEnabled).toBe(false);
  });

  it("gives stacks source lines when the operator's NODE_OPTIONS asks for them", () => {
    expect(runStart({ NODE_OPTIONS: "--enable-source-maps" }).sourceMapsEnabled).toBe(true);
  });

  it("lets the operator's NODE_OPTIONS set the heap and keeps the operator's other options", () => {
    const probe = runStart({ NODE_OPTIONS: "--max-old-space-size=300 --stack-trace-limit=25" });
    expect(probe.execArgv.join(" ")).not.toContain("--max-old-space-size");
    expect(probe.heapLimitMiB).toBeGreaterThanOrEqual(300);
    expect(probe.heapLimitMiB).toBeLessThan(400);
    expect(probe.nodeOptions).toContain("--stack-trace-limit=25");
  });

  it("caps glibc's malloc arenas at two unless the operator sets MALLOC_ARENA_MAX", () => {
    expect(runStart({}).mallocArenaMax).toBe("2");
    expect(runStart({ MALLOC_ARENA_MAX: "8" }).mallocArenaMax).toBe("8");
  });
});
