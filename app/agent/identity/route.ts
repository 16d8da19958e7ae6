// POST /agent/identity: a service_auth registration (SPEC.md "Endpoints", CONTRACT.md §3).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleRegistration } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = apiRoute((request) => handleRegistration(request));
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = refuseOtherMethods(["POST"]);
