// Responses of discovery documents: JSON (or another media type), CORS open, cacheable for a while.
export function discoveryJson(body: unknown, contentType = "application/json", extraHeaders: HeadersInit = {}): Response {
  const headers = new Headers(extraHeaders);
  headers.set("Content-Type", contentType);
  headers.set("Access-Control-Allow-Origin", "*");
  headers.set("Cache-Control", "public, max-age=300");
  return new Response(JSON.stringify(body, null, 2), { status: 200, headers });
}

export function discoveryText(body: string, contentType: string): Response {
  return new Response(body, { status: 200, headers: { "Content-Type": contentType, "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=300" } });
}

/** HEAD twin of a GET handler: same status and headers, no body. */
export async function headOf(response: Response | Promise<Response>): Promise<Response> {
  const r = await response;
  return new Response(null, { status: r.status, headers: r.headers });
}
