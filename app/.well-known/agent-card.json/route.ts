// The A2A agent card, for A2A 1.0 and 0.3.0 (also served at /.well-known/agent); signed in public release mode.
import { agentCardReply } from "@/lib/a2a/card";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const dynamic = "force-dynamic";

export const GET = apiRoute(() => agentCardReply());
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
