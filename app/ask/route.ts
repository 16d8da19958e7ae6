// GET|HEAD /ask: deterministic answers from the published documentation (CONTRACT.md §9).
import { askReply } from "@/lib/docs/responses";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute(askReply);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
