// DNS-rebinding protection for the MCP endpoints (MCP 2025-11-25 transports, "Security warning"): when the
// service itself runs on a loopback address, a request whose Host or Origin names another host can only
// come from a web page that re-pointed its own domain at this machine, so it is refused.
import { getConfig } from "@/lib/config";

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

function hostnameOf(hostHeader: string): string {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return "";
  }
}

/** A JSON-RPC refusal (403) when a loopback-hosted service gets a foreign Host or Origin; null otherwise. */
export function rejectDnsRebinding(request: Request, baseUrl: string = getConfig().baseUrl): Response | null {
  if (!isLoopbackHost(new URL(baseUrl).hostname)) return null;
  const host = request.headers.get("host");
  const origin = request.headers.get("origin");
  let foreign = host !== null && !isLoopbackHost(hostnameOf(host));
  if (!foreign && origin !== null && origin !== "null") {
    try {
      foreign = !isLoopbackHost(new URL(origin).hostname);
    } catch {
      foreign = true;
    }
  }
  if (!foreign) return null;
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Forbidden: the Host or Origin header names another host." }, id: null }), {
    status: 403,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}
