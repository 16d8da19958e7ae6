// Unknown /.well-known/* paths answer the JSON 404 (CONTRACT.md §2), whatever the method.
import { notFound } from "@/lib/http/errors";

const handler = (): Response => notFound("No such discovery document on this service.");
export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
