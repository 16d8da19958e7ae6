// Start-up checks shared by server.ts (npm start) and instrumentation.ts (a bare `next start`, `next dev`).
import { exportNextAuthUrl, installConfig, type AppConfig } from "@/lib/config";
import { startLogger } from "@/lib/observability/log";
import { preflight, startProblemLine, type PreflightOptions } from "./preflight";

/**
 * Runs the start-up checks (./preflight.ts); on any problem writes one JSON log line per problem (`start_problem`, its
 * `msg` naming the variable and the fix), then one `start_refused` line, and exits with code 1. Called before the
 * server listens. Otherwise the configuration they built becomes the process's (getConfig()), and next-auth gets its
 * base URL from it.
 */
export async function refuseUnsafeStart(options: PreflightOptions = {}): Promise<AppConfig> {
  const { config, problems } = await preflight(options);
  if (config && problems.length === 0) {
    installConfig(config);
    exportNextAuthUrl(config);
    return config;
  }
  const log = startLogger();
  for (const problem of problems) log.fatal({ type: "start_problem", kind: problem.kind, variable: problem.variable }, startProblemLine(problem));
  log.fatal(
    { type: "start_refused", problems: problems.length },
    `Not started: ${problems.length} problem${problems.length === 1 ? "" : "s"} above (docs/deploying.md lists every check; npm run -s config prints what a start reads).`,
  );
  process.exit(1);
}

// The marker lives with the caller key, which trusts the peer stamp only under server.ts.
export { markServerEntry, startedByServerEntry } from "@/lib/http/server-entry";
