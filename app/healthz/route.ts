// GET /healthz: liveness for a load balancer or Kubernetes (lib/operations/health.ts). No database.
import { refuseOtherMethods, route } from "@/lib/http/route";
import { alive, healthResponse } from "@/lib/operations/health";

export const dynamic = "force-dynamic";
export const GET = route(() => healthResponse(alive()));
export const HEAD = route(() => healthResponse(alive(), "HEAD"));
export const { POST, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["GET", "HEAD"]);
