// The A2A 0.3.0 agent card (also served at /.well-known/agent).
import { agentCardResponse } from "@/lib/a2a/card";
import { route, refuseOtherMethods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = route(() => agentCardResponse());
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
