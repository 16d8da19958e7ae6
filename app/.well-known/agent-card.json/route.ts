// The A2A 0.3.0 agent card (also served at /.well-known/agent).
import { agentCardReply } from "@/lib/a2a/card";
import { apiRoute, refuseOtherMethods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(() => agentCardReply());
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
