// Bundles the custom server (server.ts) and the SQLite checkpoint worker into dist/ for `npm start`
// (run by `npm run build` after `next build`). Our own modules are bundled (the `@/` alias resolved from
// tsconfig.json); every npm package stays in node_modules, loaded at run time as `next start` loads it.
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "./lib";

const OUT = path.join(ROOT, "dist");

async function main(): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { server: "server.ts", "sqlite-checkpoint-worker": "lib/db/sqlite-checkpoint-worker.ts", "heap-flags": "scripts/heap-flags.ts" },
    outdir: OUT,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    target: "node24",
    format: "esm",
    packages: "external",
    sourcemap: true,
    // A bundled CommonJS-style require (none today) would otherwise throw in an ES module.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning",
  });
  console.log(`server bundled: ${path.relative(ROOT, OUT)}/server.mjs, sqlite-checkpoint-worker.mjs, heap-flags.mjs`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
