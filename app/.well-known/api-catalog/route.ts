import { API_CATALOG_CONTENT_TYPE, apiCatalog, apiCatalogLinkHeader } from "@/lib/discovery/api-catalog";
import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { route, refuseOtherMethods } from "@/lib/http/route";

const serve = () => discoveryJson(apiCatalog(), API_CATALOG_CONTENT_TYPE, { Link: apiCatalogLinkHeader() });

export const GET = route(serve);
export const HEAD = route(() => headOf(serve()));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
