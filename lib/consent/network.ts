// Where a request came from, as the approval page compares it (RFC 10027 §6.1.14, with §6.1.1 as a risk signal):
// the caller key (lib/http/client-ip.ts: an IPv4 address or an IPv6 /64, through TRUSTED_PROXY) kept as a keyed
// hash, never as an address. HMAC-SHA256 under a key of its own derived from AUTH_SECRET (lib/local-secrets): the
// whole IPv4 space is only 2^32 addresses, so a plain hash would be reversed by anyone who read the database; the
// keyed one cannot be without the server's secret. The same on every instance; changing AUTH_SECRET only makes the
// hashes of requests already made unmatchable (their approval page then says nothing about the network).
import { createHmac } from "node:crypto";
import { NO_ADDRESS_KEY, VERIFIED_AGENT_KEY_PREFIX } from "@/lib/http/client-ip";
import { derivedKey } from "@/lib/local-secrets";

const KEY_PURPOSE = "agent-gate network hash v1";

/** The keyed hash of a caller key; null when the request's network is unknown (no trusted address). */
export async function networkHash(callerKey: string): Promise<string | null> {
  if (callerKey === NO_ADDRESS_KEY || callerKey.startsWith(VERIFIED_AGENT_KEY_PREFIX)) return null;
  return createHmac("sha256", await derivedKey(KEY_PURPOSE))
    .update(callerKey, "utf8")
    .digest("base64url");
}

export type NetworkComparison = "same" | "different" | "unknown";

/** Whether the request came from the network the member is on now (the browser's caller key). */
export async function compareNetworks(requestNetworkHash: string | null, browserCallerKey: string): Promise<NetworkComparison> {
  const browser = await networkHash(browserCallerKey);
  if (requestNetworkHash === null || browser === null) return "unknown";
  return requestNetworkHash === browser ? "same" : "different";
}
