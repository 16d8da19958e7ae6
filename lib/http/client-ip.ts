// Finds the client IP by the TRUSTED_PROXY policy (CONTRACT.md §1). Per-IP limits hang on this, so a
// client must never be able to choose its own bucket by sending X-Forwarded-For.
import type { TrustedProxy } from "@/lib/config";
import { getConfig } from "@/lib/config";
import type { HeaderReader } from "./api";

/** Header stamped from the socket by instrumentation (lib/http/peer-stamp.ts); any client-sent copy is replaced. */
export const PEER_HEADER = "x-agent-gate-peer";

function normalizeIp(ip: string): string {
  const trimmed = ip.trim().replace(/^\[|\]$/g, "");
  return trimmed.startsWith("::ffff:") && trimmed.includes(".") ? trimmed.slice(7) : trimmed;
}

function forwardedChain(headers: HeaderReader): string[] {
  const raw = headers.get("x-forwarded-for");
  if (!raw) return [];
  return raw
    .split(",")
    .map((part) => normalizeIp(part))
    .filter((part) => part.length > 0 && part.length <= 64);
}

/** The client IP of a request: the socket (none), Vercel's header (vercel) or the Nth hop from the right (hops). */
export function clientIp(headers: HeaderReader, policy: TrustedProxy = getConfig().trustedProxy): string {
  const peer = headers.get(PEER_HEADER);
  const socketIp = peer ? normalizeIp(peer) : undefined;
  switch (policy.kind) {
    case "none":
      // Without the peer stamp (not under `next start`), Next fills X-Forwarded-For from the socket only when absent.
      return socketIp ?? forwardedChain(headers).at(-1) ?? "unknown";
    case "vercel": {
      const vercel = headers.get("x-vercel-forwarded-for") ?? headers.get("x-real-ip");
      return vercel ? normalizeIp(vercel.split(",")[0] ?? "") || "unknown" : (socketIp ?? "unknown");
    }
    case "hops": {
      // Rightmost entries were appended by our trusted proxies; the socket is the nearest hop.
      const chain = [...forwardedChain(headers), ...(socketIp ? [socketIp] : [])];
      const index = chain.length - 1 - policy.hops;
      return chain[Math.max(0, index)] ?? "unknown";
    }
  }
}
