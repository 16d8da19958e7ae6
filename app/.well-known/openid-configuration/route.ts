// /.well-known/openid-configuration is the JSON 404 in every release mode (CONTRACT.md §7): this is no OpenID provider.
import { notFoundReply } from "@/lib/http/errors";
import { apiRoute } from "@/lib/routes/handlers";

const handler = apiRoute(() => notFoundReply("This service is not an OpenID provider; see /.well-known/oauth-authorization-server."));
export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
