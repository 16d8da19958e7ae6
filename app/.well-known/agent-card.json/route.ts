// The A2A 0.3.0 agent card (also served at /.well-known/agent).
import { agentCardResponse } from "@/lib/a2a/card";
import { notAllowed, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const GET = route(() => agentCardResponse());
export const POST = notAllowed(["GET", "HEAD"]);
