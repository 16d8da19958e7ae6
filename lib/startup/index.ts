// Node.js-only start-up work, loaded by instrumentation.ts.
import { getConfig } from "@/lib/config";
import { serveFront } from "@/lib/front";
import { holdSqliteConnection } from "@/lib/db/sql";
import { startSqliteCheckpointer } from "@/lib/db/sqlite-checkpointer";
import { installPeerStamp } from "@/lib/http/peer-stamp";
import { turns } from "@/lib/turns";
import { sqliteFilePath } from "@/prisma/adapters";
import { preflight, startProblemLine, type PreflightOptions } from "./preflight";

/**
 * Runs the start-up checks (lib/startup/preflight.ts); on any problem prints one line per problem, each naming
 * its variable and the fix, and exits with code 1. Call it before the server listens.
 */
export async function refuseUnsafeStart(options: PreflightOptions = {}): Promise<void> {
  const { problems } = await preflight(options);
  if (problems.length === 0) return;
  for (const problem of problems) console.error(startProblemLine(problem));
  console.error(`[agent-gate] Not started: ${problems.length} problem${problems.length === 1 ? "" : "s"} above (README "Deploying" lists every check).`);
  process.exit(1);
}

export async function startNodeServer(): Promise<void> {
  await refuseUnsafeStart();
  const config = getConfig();
  // The front only under `next start`: `next dev` keeps recompiling route files, the front would not.
  const production = process.env.NODE_ENV === "production";
  // Requests Next answers take turns (lib/turns) under `next start`, where the bench measures the server.
  installPeerStamp({ intercept: config.nodeFront && production ? serveFront : undefined, turns: production ? turns() : undefined });
  // Before the first query opens the database, so the app connection knows a worker checkpoints for it.
  if (production && config.databaseProvider === "sqlite") {
    try {
      startSqliteCheckpointer(sqliteFilePath(config.databaseUrl), { holdConnection: holdSqliteConnection });
    } catch (error) {
      // The app connection's own automatic checkpoint remains: a worker that cannot start is no reason to stop.
      console.error(`[agent-gate] SQLite checkpoint worker not started: ${error instanceof Error ? error.message.slice(0, 200) : String(error).slice(0, 200)}`);
    }
  }
}
