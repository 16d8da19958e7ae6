// Start-up checks shared by server.ts (npm start) and instrumentation.ts (a bare `next start`, `next dev`).
import { ConfigError, getConfig, type AppConfig } from "@/lib/config";
import { preflight, startProblemLine, type PreflightOptions } from "./preflight";

/**
 * Runs the start-up checks (./preflight.ts); on any problem prints one line per problem, each naming its
 * variable and the fix, and exits with code 1. Called before the server listens.
 */
export async function refuseUnsafeStart(options: PreflightOptions = {}): Promise<void> {
  const { problems } = await preflight(options);
  if (problems.length === 0) return;
  for (const problem of problems) console.error(startProblemLine(problem));
  console.error(`[agent-gate] Not started: ${problems.length} problem${problems.length === 1 ? "" : "s"} above (README "Deploying" lists every check).`);
  process.exit(1);
}

/** The configuration, or the process stops with one clear line naming the bad variable. */
export function configOrExit(): AppConfig {
  try {
    return getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

// The marker lives with the caller key, which trusts the peer stamp only under server.ts.
export { markServerEntry, startedByServerEntry } from "@/lib/http/server-entry";
