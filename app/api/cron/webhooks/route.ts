// GET /api/cron/webhooks: Vercel Cron's webhook delivery pass (lib/webhooks/cron.ts, vercel.json).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleWebhookCron } from "@/lib/webhooks/cron";

export const dynamic = "force-dynamic";
export const GET = apiRoute((request) => handleWebhookCron(request));
export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET"]);
