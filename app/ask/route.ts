// GET|HEAD /ask: deterministic answers from the published documentation (CONTRACT.md §9).
import { askReply } from "@/lib/docs/responses";
import { apiRoute, notAllowed } from "@/lib/http/route";

const handler = apiRoute(askReply);

export { handler as GET, handler as HEAD };
const other = notAllowed(["GET", "HEAD"]);
export { other as POST, other as PUT, other as PATCH, other as DELETE };
