// OpenAPI 3.1 description of the supported direct JSON reads, generated from the handlers' zod schemas.
import { discoveryJson, headOf } from "@/lib/discovery/respond";
import { route, refuseOtherMethods } from "@/lib/http/route";
import { openApiDocument } from "@/lib/openapi";

const serve = () => discoveryJson(openApiDocument());

export const GET = route(serve);
export const HEAD = route(() => headOf(serve()));
export const { POST, PUT, PATCH, DELETE } = refuseOtherMethods(["GET", "HEAD"]);
