// GET /readyz: readiness (lib/operator/health.ts): 200 when the database answers, migrations are applied
// and signing keys load; 503 naming the failing check otherwise. The node:http front serves it too.
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { readyReply } from "@/lib/operator/health";

export const dynamic = "force-dynamic";
export const GET = apiRoute(readyReply);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
