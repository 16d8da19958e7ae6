// GET/HEAD /.well-known/jwks.json (CONTRACT.md §7).
import { route } from "@/lib/http/route";
import { discoveryMethodNotAllowed, serveDiscovery } from "@/lib/discovery";

export const dynamic = "force-dynamic";
export const GET = route((request) => serveDiscovery(request, "jwks"));
export const HEAD = GET;
export const POST = discoveryMethodNotAllowed("jwks");
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
