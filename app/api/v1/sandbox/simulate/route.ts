// POST /api/v1/sandbox/simulate: fixed synthetic production responses; no database, no signing, no writes.
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { handleSimulateRequest } from "@/lib/sandbox/simulate";

export const POST = apiRoute((request) => handleSimulateRequest(request));
export const { GET, HEAD, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
