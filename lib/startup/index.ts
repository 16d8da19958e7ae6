// Start-up checks shared by server.ts (npm start) and instrumentation.ts (a bare `next start`, `next dev`).
import { exportNextAuthUrl, installConfig, type AppConfig } from "@/lib/config";
import { preflight, startProblemLine, type PreflightOptions } from "./preflight";

/**
 * Runs the start-up checks (./preflight.ts); on any problem prints one line per problem, each naming its
 * variable and the fix, and exits with code 1. Called before the server listens. Otherwise the configuration
 * they built becomes the process's (getConfig()), and next-auth gets its base URL from it.
 */
export async function refuseUnsafeStart(options: PreflightOptions = {}): Promise<AppConfig> {
  const { config, problems } = await preflight(options);
  if (config && problems.length === 0) {
    installConfig(config);
    exportNextAuthUrl(config);
    return config;
  }
  for (const problem of problems) console.error(startProblemLine(problem));
  console.error(
    `[agent-gate] Not started: ${problems.length} problem${problems.length === 1 ? "" : "s"} above (docs/deploying.md lists every check; npm run -s config prints what a start reads).`,
  );
  process.exit(1);
}

// The marker lives with the caller key, which trusts the peer stamp only under server.ts.
export { markServerEntry, startedByServerEntry } from "@/lib/http/server-entry";
