// Node.js-only start-up work, loaded by instrumentation.ts.
import { ConfigError, getConfig } from "@/lib/config";
import { serveFront } from "@/lib/front";
import { holdSqliteConnection } from "@/lib/db/sql";
import { startSqliteCheckpointer } from "@/lib/db/sqlite-checkpointer";
import { installPeerStamp } from "@/lib/http/peer-stamp";
import { turns } from "@/lib/turns";
import { startWebhookDelivery } from "@/lib/webhooks/delivery";
import { sqliteFilePath } from "@/prisma/adapters";

export function startNodeServer(): void {
  let config: ReturnType<typeof getConfig>;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      // One clear line naming the variable, then stop.
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // The front only under `next start`: `next dev` keeps recompiling route files, the front would not.
  const production = process.env.NODE_ENV === "production";
  // Requests Next answers take turns (lib/turns) under `next start`, where the bench measures the server.
  installPeerStamp({ intercept: config.nodeFront && production ? serveFront : undefined, turns: production ? turns() : undefined });
  // Before the first query opens the database, so the app connection knows a worker checkpoints for it.
  if (production && config.databaseProvider === "sqlite") startSqliteCheckpointer(sqliteFilePath(config.databaseUrl), { holdConnection: holdSqliteConnection });
  // Webhook delivery runs in this process (content/docs/webhooks.md); on Vercel the cron route and after() do.
  if (process.env.WEBHOOK_DELIVERY !== "off") startWebhookDelivery();
}
