// Same-origin plumbing of the /map page; every other caller gets 403 not_supported (CONTRACT.md §9).
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { mapSearchReply } from "@/lib/map";

export const dynamic = "force-dynamic";

export const GET = apiRoute((request) => mapSearchReply(request));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET"]);
