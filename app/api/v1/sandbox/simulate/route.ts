// POST /api/v1/sandbox/simulate: fixed synthetic production responses; no database, no signing, no writes.
import { route, notAllowed } from "@/lib/http/route";
import { handleSimulateRequest } from "@/lib/sandbox/simulate";

export const POST = route(async (request) => handleSimulateRequest(request));
const other = notAllowed(["POST"]);
export { other as GET, other as HEAD, other as PUT, other as PATCH, other as DELETE };
