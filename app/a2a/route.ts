// /a2a: JSON-RPC 2.0 over POST, A2A 1.0 (A2A-Version: 1.0) and 0.3.0 (no A2A-Version), wrapping the four community tools.
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { apiRoute, preflight, refuseOtherMethods } from "@/lib/routes/handlers";

export const dynamic = "force-dynamic";

export const POST = apiRoute((request) => handleA2aRequest(request));
export const { GET, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
export const OPTIONS = preflight(["POST"], ["Content-Type", "Accept", "Authorization", "X-A2A-Extensions", "A2A-Version", "A2A-Extensions"]);
