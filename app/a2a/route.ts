// /a2a: JSON-RPC 2.0 over POST, A2A protocol 0.3.0, wrapping the four community tools.
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { corsPreflight } from "@/lib/http/cors";
import { apiRoute, refuseOtherMethods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const POST = apiRoute((request) => handleA2aRequest(request));
export const { GET, PUT, PATCH, DELETE } = refuseOtherMethods(["POST"]);
export const OPTIONS = () => corsPreflight(["POST"], ["Content-Type", "Accept", "Authorization", "X-A2A-Extensions"]);
