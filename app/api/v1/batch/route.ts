// POST /api/v1/batch: the bounded anonymous public-read batch (CONTRACT.md §9).
import { handleBatchRequest } from "@/lib/batch";
import { notAllowed, route } from "@/lib/http/route";

export const POST = route(async (request) => handleBatchRequest(request));
const other = notAllowed(["POST"]);
export { other as GET, other as HEAD, other as PUT, other as PATCH, other as DELETE };
