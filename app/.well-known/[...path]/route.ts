// Unknown /.well-known/* paths answer the JSON 404 (CONTRACT.md §2), whatever the method.
import { notFoundReply } from "@/lib/http/errors";
import { apiRoute } from "@/lib/routes/handlers";

const handler = apiRoute(() => notFoundReply("No such discovery document on this service."));
export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
