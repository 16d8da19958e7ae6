import { API_CATALOG_CONTENT_TYPE, apiCatalog, apiCatalogLinkHeader } from "@/lib/discovery/api-catalog";
import { discoveryJson } from "@/lib/discovery/respond";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";

const serve = () => discoveryJson(apiCatalog(), API_CATALOG_CONTENT_TYPE, { Link: apiCatalogLinkHeader() });

export const GET = apiRoute(serve);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
