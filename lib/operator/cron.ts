// GET /api/cron/janitor (Vercel Cron, vercel.json): one bounded janitor pass per call, for deployments
// without a long-running process. Vercel sends `Authorization: Bearer <CRON_SECRET>`.
import { jsonReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { getConfig } from "@/lib/config";
import { runJanitorPass } from "./janitor";
import { bearerMatches, operatorUnauthorized } from "./auth";

/** A call removes at most this many batches per table (100 rows each on SQLite, 500 on PostgreSQL; fewer while requests are served)… */
const CRON_MAX_BATCHES_PER_TABLE = 500;
/** …and starts no batch after this long (paced batches; a function's time limit is longer). */
const CRON_BUDGET_MS = 20_000;

export async function handleJanitorCron(request: ApiRequest): Promise<ApiReply> {
  if (!bearerMatches(request.headers.get("authorization"), getConfig().operations.cronSecret)) return operatorUnauthorized();
  const report = await runJanitorPass({ maxBatchesPerTable: CRON_MAX_BATCHES_PER_TABLE, budgetMs: CRON_BUDGET_MS });
  return jsonReply(report, { "cache-control": "no-store" });
}
