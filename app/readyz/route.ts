// GET /readyz: readiness (lib/operations/health.ts): 200 when the database answers, migrations are applied
// and signing keys load; 503 naming the failing check otherwise.
import { refuseOtherMethods, route } from "@/lib/http/route";
import { healthResponse, ready } from "@/lib/operations/health";

export const dynamic = "force-dynamic";
export const GET = route(async () => healthResponse(await ready()));
export const HEAD = route(async () => healthResponse(await ready(), "HEAD"));
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
