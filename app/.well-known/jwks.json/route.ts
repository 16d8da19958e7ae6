// GET/HEAD /.well-known/jwks.json (CONTRACT.md §7).
import { discoveryMethodNotAllowed, serveDiscovery } from "@/lib/discovery";
import { apiRoute } from "@/lib/routes/handlers";

export const dynamic = "force-dynamic";

export const GET = apiRoute(() => serveDiscovery("jwks"));
export const HEAD = GET;
// Not refuseOtherMethods: in private release mode the document does not exist for any method (JSON 404).
const other = apiRoute(() => discoveryMethodNotAllowed("jwks"));
export { other as POST, other as PUT, other as PATCH, other as DELETE };
