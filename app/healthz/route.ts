// GET /healthz: liveness for a load balancer or Kubernetes (lib/operator/health.ts). No database. The
// node:http front serves it too.
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { aliveReply } from "@/lib/operator/health";

export const dynamic = "force-dynamic";
export const GET = apiRoute(aliveReply);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
