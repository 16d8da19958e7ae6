// OpenAPI 3.1 description of the supported direct JSON reads, generated from the handlers' zod schemas.
import { discoveryJson } from "@/lib/discovery/respond";
import { apiRoute, refuseOtherMethods } from "@/lib/routes/handlers";
import { openApiDocument } from "@/lib/openapi";

const serve = () => discoveryJson(openApiDocument());

export const GET = apiRoute(serve);
export const HEAD = GET;
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
