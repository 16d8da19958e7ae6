import { API_CATALOG_CONTENT_TYPE, apiCatalog, apiCatalogLinkHeader } from "@/lib/discovery/api-catalog";
import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { route } from "@/lib/http/route";

const serve = () => discoveryJson(apiCatalog(), API_CATALOG_CONTENT_TYPE, { Link: apiCatalogLinkHeader() });

export const GET = route(serve);
export const HEAD = route(() => headOf(serve()));
