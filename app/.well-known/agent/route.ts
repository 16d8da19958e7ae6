// The same A2A agent card as /.well-known/agent-card.json, at the path older clients try.
import { agentCardResponse } from "@/lib/a2a/card";
import { notAllowed, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = route(() => agentCardResponse());
export const POST = notAllowed(["GET", "HEAD"]);
