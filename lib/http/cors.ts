// CORS preflight for the anonymous public-read endpoints (CONTRACT.md §10: every origin may read them).
export function corsPreflight(methods: readonly string[], allowHeaders: readonly string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": methods.join(", "),
      "Access-Control-Allow-Headers": allowHeaders.join(", "),
      "Access-Control-Expose-Headers": "Mcp-Session-Id, Mcp-Protocol-Version",
      "Access-Control-Max-Age": "86400",
      Allow: [...methods, "OPTIONS"].join(", "),
    },
  });
}
