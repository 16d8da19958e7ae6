// Unit tests drive lib handlers with web Requests and read their answers as web Responses, through the same
// conversions the route files use (lib/http/api.ts).
import { fromWebRequest, toWebResponse, type ApiReply, type ApiRequest } from "@/lib/http/api";

export const apiRequest = (request: Request): ApiRequest => fromWebRequest(request);
export const webResponse = (reply: ApiReply): Response => toWebResponse(reply);
