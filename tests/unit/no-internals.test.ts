// Issue 33 items 3 and 7: the layers that patched Node or leaned on a library's private internals stay removed, and
// the source and bench/README.md describe the present. Read from the committed source files (the generated Prisma
// clients and node_modules are not ours).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..", "..");

/** Our TypeScript sources: lib/ (without the generated clients), app/, scripts/, server.ts and proxy.ts. */
function sources(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (full !== path.join(ROOT, "lib", "generated")) walk(full);
      } else if (/\.(ts|tsx|mjs)$/.test(entry.name)) files.push(full);
    }
  };
  for (const dir of ["lib", "app", "scripts"]) walk(path.join(ROOT, dir));
  return [...files, path.join(ROOT, "server.ts"), path.join(ROOT, "proxy.ts")];
}

/** Each file:line where `pattern` matches. */
function findings(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const file of sources()) {
    fs.readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (pattern.test(line)) found.push(`${path.relative(ROOT, file)}:${i + 1}`);
      });
  }
  return found;
}

describe("no patched runtime, no private internals (issue 33 item 3)", () => {
  it.each([
    ["node:async_hooks replaced for the process", /syncBuiltinESMExports/],
    ["objects shaped by hand for hidden classes", /\bwithFields\b/],
    ["zod's private registry map", /\._idmap\b/],
    ["prom-client's private serialiser", /getForPromString/],
    ["the A2A SDK's private request context", /_createRequestContext/],
    ["Next's private standalone configuration", /__NEXT_PRIVATE_/],
    ["Node's headers patched for a native build", /node24\.ts|RemoveEnvironmentCleanupHook/],
  ])("%s", (_what, pattern) => {
    expect(findings(pattern)).toEqual([]);
  });
});

describe("docs that describe the present (issue 33 item 7)", () => {
  it("bench/README.md is at most 300 lines", () => {
    const lines = fs
      .readFileSync(path.join(ROOT, "bench", "README.md"), "utf8")
      .trimEnd()
      .split("\n");
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  it("no comment cites a bench pass", () => {
    expect(
      findings(/bench[^\n]{0,60}\bpass(es)?\b|\b(third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth) pass\b/i),
    ).toEqual([]);
  });
});
