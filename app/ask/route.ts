// GET|HEAD /ask: deterministic answers from the published documentation (CONTRACT.md §9).
import { askResponse } from "@/lib/docs/responses";
import { notAllowed, route } from "@/lib/http/route";

const handler = route(async (request) => askResponse(request));

export { handler as GET, handler as HEAD };
const other = notAllowed(["GET", "HEAD"]);
export { other as POST, other as PUT, other as PATCH, other as DELETE };
