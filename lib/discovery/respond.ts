// Answers of discovery documents: JSON (or another media type), CORS open, cacheable for a while.
import { textReply, type ApiReply } from "@/lib/http/api";
import { lowerCaseHeaders } from "@/lib/http/errors";

export function discoveryText(body: string, contentType: string, extraHeaders: HeadersInit = {}): ApiReply {
  return textReply(body, 200, { ...lowerCaseHeaders(extraHeaders), "content-type": contentType, "access-control-allow-origin": "*", "cache-control": "public, max-age=300" });
}

export function discoveryJson(body: unknown, contentType = "application/json", extraHeaders: HeadersInit = {}): ApiReply {
  return discoveryText(JSON.stringify(body, null, 2), contentType, extraHeaders);
}
