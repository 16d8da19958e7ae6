// GET /api/cron/janitor: the janitor's pass for Vercel Cron (lib/operator/cron.ts). Not an agent endpoint.
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleJanitorCron } from "@/lib/operator/cron";

export const dynamic = "force-dynamic";
export const GET = apiRoute((request) => handleJanitorCron(request));
export const { HEAD, POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET"]);
