// GET /api: the root of the REST API (also the protected resource identifier {base}/api): where its
// description and documentation are. Anonymous, and never a credential check.
import { discoveryJson } from "@/lib/discovery/respond";
import { apiRoot } from "@/lib/discovery/api-root";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

export const GET = apiRoute(() => discoveryJson(apiRoot()));
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
