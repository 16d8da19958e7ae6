// The production entry starts Next with the configuration `next build` already resolved
// (.next/required-server-files.json), as Next's own standalone server does, instead of letting Next load
// next.config.ts at start: compiling a TypeScript config maps Next's SWC binary into the process, 26 MB of RSS
// that stays for the process's life for one file read once (bench/README.md "Seventh pass: memory").
// The build's copy carries everything the config decides (its headers are compiled into the route manifest).
import fs from "node:fs";
import path from "node:path";

/** The variable Next's config loader reads before it looks for next.config.* (next/dist/server/config.js). */
export const BUILT_CONFIG_VARIABLE = "__NEXT_PRIVATE_STANDALONE_CONFIG";

/**
 * Points Next at the build's resolved configuration under `dir`, by setting the variable in `env` (server.ts
 * passes process.env, which Next reads). Returns false (and changes nothing) when the
 * variable is already set or the build wrote no such file: Next then loads next.config.ts as before.
 */
export function applyBuiltNextConfig(dir: string, env: Record<string, string | undefined>): boolean {
  if (env[BUILT_CONFIG_VARIABLE]) return false;
  let config: unknown;
  try {
    config = (JSON.parse(fs.readFileSync(path.join(dir, ".next", "required-server-files.json"), "utf8")) as { config?: unknown }).config;
  } catch {
    return false;
  }
  if (config === null || typeof config !== "object") return false;
  env[BUILT_CONFIG_VARIABLE] = JSON.stringify(config);
  return true;
}
