// GET /metrics: the registry of lib/observability/metrics.ts as Prometheus text, only with
// `Authorization: Bearer <METRICS_TOKEN>` (off without it).
import { getConfig } from "@/lib/config";
import { textReply, type ApiReply, type ApiRequest } from "@/lib/http/api";
import { notFoundReply } from "@/lib/http/errors";
import { serviceMetrics, startProcessCollectors } from "@/lib/observability/metrics";
import { bearerMatches, operatorUnauthorized } from "./auth";

/** GET /metrics: 404 while METRICS_TOKEN is unset, 401 without the token, else the Prometheus text. */
export async function handleMetrics(request: ApiRequest): Promise<ApiReply> {
  const token = getConfig().operations.metricsToken;
  if (!token) return notFoundReply();
  if (!bearerMatches(request.headers.get("authorization"), token)) return operatorUnauthorized();
  const metrics = serviceMetrics();
  startProcessCollectors(metrics);
  const { registry } = metrics;
  const text = await registry.metrics();
  return textReply(text, 200, { "content-type": registry.contentType, "cache-control": "no-store" }, request.method === "HEAD");
}
