// GET /api: the root of the REST API (also the protected resource identifier {base}/api): where its
// description and documentation are. Anonymous, and never a credential check.
import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { apiRoot } from "@/lib/discovery/api-root";
import { route, refuseOtherMethods } from "@/lib/http/route";

export const GET = route(() => discoveryJson(apiRoot()));
export const HEAD = route(() => headOf(discoveryJson(apiRoot())));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
