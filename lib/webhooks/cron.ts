// GET /api/cron/webhooks (Vercel Cron, vercel.json): one delivery pass, for callers that present
// `Authorization: Bearer ${CRON_SECRET}` (compared in constant time). Without CRON_SECRET set, every call is
// refused: the route never runs for an anonymous caller.
import { getConfig } from "@/lib/config";
import { constantTimeEqual } from "@/lib/crypto/secrets";
import { jsonReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { errorReply } from "@/lib/http/errors";
import { runDeliveryPass } from "./delivery";

/** A cron invocation stops claiming new work after this long (Vercel functions have a time limit). */
const CRON_BUDGET_MS = 20_000;

export function cronAuthorized(authorization: string | null, secret: string | undefined = getConfig().operations.cronSecret): boolean {
  if (!secret || !authorization) return false;
  return constantTimeEqual(authorization, `Bearer ${secret}`);
}

export async function handleWebhookCron(request: ApiRequest): Promise<ApiReply> {
  if (!cronAuthorized(request.headers.get("authorization"))) {
    return errorReply("invalid_token", "This endpoint is for the scheduler only.", { headers: { "WWW-Authenticate": 'Bearer realm="cron"' } });
  }
  const summary = await runDeliveryPass({ budgetMs: CRON_BUDGET_MS });
  return jsonReply(summary, { "cache-control": "no-store" });
}
