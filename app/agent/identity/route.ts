// POST /agent/identity: a service_auth registration (SPEC.md "Endpoints", CONTRACT.md §3).
import { notAllowed, route } from "@/lib/http/route";
import { handleRegistration } from "@/lib/service-auth/http";

export const dynamic = "force-dynamic";
export const POST = route((request) => handleRegistration(request));
export const GET = notAllowed(["POST"]);
export const HEAD = GET;
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
export const OPTIONS = GET;
