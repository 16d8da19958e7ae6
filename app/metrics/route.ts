// GET /metrics: Prometheus text for the operator (lib/observability/metrics.ts); off unless METRICS_TOKEN is set.
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleMetrics } from "@/lib/operator/metrics";

export const dynamic = "force-dynamic";
export const GET = apiRoute((request) => handleMetrics(request));
export const HEAD = apiRoute((request) => handleMetrics(request));
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
