// Same-origin plumbing of the /map page; every other caller gets 403 not_supported (CONTRACT.md §9).
import { notAllowed, route } from "@/lib/http/route";
import { mapSearchResponse } from "@/lib/map";

export const dynamic = "force-dynamic";

export const GET = route((request) => mapSearchResponse(request));
export const POST = notAllowed(["GET"]);
export const PUT = notAllowed(["GET"]);
export const PATCH = notAllowed(["GET"]);
export const DELETE = notAllowed(["GET"]);
