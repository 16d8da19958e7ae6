// POST /api/v1/batch: the bounded anonymous public-read batch (CONTRACT.md §9).
import { handleBatchRequest } from "@/lib/batch";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const POST = apiRoute((request) => handleBatchRequest(request));
export const { GET, HEAD, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
