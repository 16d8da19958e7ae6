// The same A2A agent card as /.well-known/agent-card.json, at the path older clients try.
import { agentCardReply } from "@/lib/a2a/card";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const dynamic = "force-dynamic";

export const GET = apiRoute(() => agentCardReply());
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
