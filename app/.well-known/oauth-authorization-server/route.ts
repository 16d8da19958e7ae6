// GET/HEAD /.well-known/oauth-authorization-server (CONTRACT.md §7).
import { route } from "@/lib/http/route";
import { discoveryMethodNotAllowed, serveDiscovery } from "@/lib/discovery";

export const dynamic = "force-dynamic";
export const GET = route((request) => serveDiscovery(request, "authorization-server"));
export const HEAD = GET;
export const POST = discoveryMethodNotAllowed("authorization-server");
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
