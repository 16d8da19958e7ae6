// DNS-rebinding protection for the MCP endpoints (MCP 2025-11-25 transports, "Security warning"). A page
// that re-points its own domain at this service believes it is same-origin: its Origin names the same host
// as the Host header, and that host is not ours. On a loopback-hosted service any foreign Host is such a
// page. A foreign Origin with our Host is an ordinary cross-origin caller (CORS *) and passes.
import { getConfig } from "@/lib/config";
import type { ApiReply, HeaderReader } from "@/lib/http/api";
import { jsonRpcTransportErrorReply } from "@/lib/http/errors";

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The hostname of a Host header value; "" when it does not parse. */
function hostnameOf(hostHeader: string): string {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return "";
  }
}

/** The host (with port) of an Origin header value; null when absent, "null" or unparsable. */
function originHostOf(origin: string | null): string | null {
  if (origin === null || origin === "null") return null;
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

/** What the check needs of our base URL. */
interface OwnHost {
  baseUrl: string;
  loopback: boolean;
  host: string;
}

// Every request asks about the same base URL and, from one client, the same Host: each is parsed once (two URL
// parses were most of the check's cost per MCP message) and the answer kept until another one comes.
let ownHost: OwnHost | undefined;
let lastHost: { host: string; loopback: boolean } | undefined;

function ownHostOf(baseUrl: string): OwnHost {
  if (ownHost?.baseUrl !== baseUrl) {
    const ours = new URL(baseUrl);
    ownHost = { baseUrl, loopback: isLoopbackHost(ours.hostname), host: ours.host.toLowerCase() };
  }
  return ownHost;
}

function isLoopbackHostHeader(host: string): boolean {
  if (lastHost?.host !== host) lastHost = { host, loopback: isLoopbackHost(hostnameOf(host)) };
  return lastHost.loopback;
}

/** True when the request looks like a DNS-rebinding attack on a service whose base URL is `baseUrl`. */
export function isDnsRebinding(headers: HeaderReader, baseUrl: string = getConfig().baseUrl): boolean {
  const ours = ownHostOf(baseUrl);
  const host = headers.get("host")?.toLowerCase() ?? null;
  if (host !== null && ours.loopback && !isLoopbackHostHeader(host)) return true;
  const originHost = originHostOf(headers.get("origin"));
  return originHost !== null && originHost === host && originHost !== ours.host;
}

/** The 403 JSON-RPC refusal for a DNS-rebinding request; null when the request may proceed. */
export function rejectDnsRebinding(headers: HeaderReader, baseUrl: string = getConfig().baseUrl): ApiReply | null {
  if (!isDnsRebinding(headers, baseUrl)) return null;
  return jsonRpcTransportErrorReply(403, "Forbidden: the Host or Origin header names another host.");
}
