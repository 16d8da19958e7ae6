// GET /metrics: Prometheus text for the operator (lib/operations/metrics.ts); off unless METRICS_TOKEN is set.
import { refuseOtherMethods, route } from "@/lib/http/route";
import { handleMetrics } from "@/lib/operations/metrics";

export const dynamic = "force-dynamic";
export const GET = route((request) => handleMetrics(request));
export const HEAD = route((request) => handleMetrics(request));
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
