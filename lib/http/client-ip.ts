// The caller key of a request (CONTRACT.md §1): every per-address limit hangs on it, so a client must never
// be able to choose its own bucket. The address comes from the socket (the peer stamp, which replaces any
// client-sent copy; trusted only when server.ts's listener made it: under a bare `next start` the header is
// the client's, ./server-entry.ts), from the platform's header under TRUSTED_PROXY=vercel (refused at start
// outside VERCEL=1), or from X-Forwarded-For, believed only when the socket peer is one of the operator's own
// proxies (TRUSTED_PROXY=<hops> with TRUSTED_PROXY_ADDRESSES, default loopback; or TRUSTED_PROXY=<list>, where
// the caller is the rightmost address that is not a listed proxy, as Express's `trust proxy`); never from a
// header the client alone controls. Under a bare `next start` the peer is unknown: X-Forwarded-For is then
// read as before, assuming the nearest hop is a proxy (a production start there needs one in front anyway).
// IPv4 callers are keyed by address, IPv6 callers by their /64 (anyone with IPv6 holds at least a /64),
// IPv4-mapped IPv6 as the IPv4 it maps.
import ipaddr from "ipaddr.js";
import type { TrustedProxy } from "@/lib/config";
import { getConfig } from "@/lib/config";
import type { HeaderReader } from "./api";
import { startedByServerEntry } from "./server-entry";

/** Header stamped from the socket by server.ts's request listener (lib/server/request-listener.ts), replacing any client-sent copy. */
export const PEER_HEADER = "x-agent-gate-peer";

/**
 * Header with the caller key server.ts's listener derived for the request (for admission's shares), replacing any
 * client-sent copy: the handler's budgets and the log line read it instead of deriving the key again.
 */
export const CALLER_HEADER = "x-agent-gate-caller";

/**
 * Header with the Web Bot Auth result server.ts's listener found for a signed request (lib/agent-identity
 * listenerIdentity, against a cached directory), replacing any client-sent copy: the handler reads it instead of
 * verifying again (a nonce is accepted once). Absent: the listener did not verify it (the handler does). Believed only
 * when server.ts started the process, as CALLER_HEADER.
 */
export const AGENT_HEADER = "x-agent-gate-agent";

/**
 * The one bucket of every request whose address is unknown (no peer stamp, no platform header). Limits give
 * it a tenth of their allowance (lib/rate-limit/budgets.ts): a request without an address gets no free pass.
 */
export const NO_ADDRESS_KEY = "no-address";

/**
 * The caller keys of verified agents (lib/agent-identity: `agent:<origin>`), a namespace no address key can take. Their
 * budgets allow VERIFIED_AGENT_ALLOWANCE_FACTOR times an address's (lib/rate-limit/budgets.ts).
 */
export const VERIFIED_AGENT_KEY_PREFIX = "agent:";

/** The address text without brackets, port-free as the stamp and the headers carry it. */
function stripBrackets(text: string): string {
  return text.trim().replace(/^\[|\]$/g, "");
}

/**
 * Keys of addresses seen lately: ipaddr.js's parsing costs microseconds (an IPv6 address tens of them), and the
 * same few addresses ask again and again (the log line and the budgets of every request). Emptied when full, so
 * a flood of new addresses costs what it did without it, and no more memory.
 */
const recentKeys = new Map<string, string | null>();
const RECENT_KEYS_MAX = 4096;

/** The key of one address: IPv4 as is, IPv4-mapped IPv6 as its IPv4, other IPv6 as its /64; null when not an address. */
export function addressKey(text: string): string | null {
  // Only address-sized texts are kept (an address is at most 64 characters, plus brackets and blanks).
  if (text.length > 80) return parseAddressKey(text);
  const known = recentKeys.get(text);
  if (known !== undefined) return known;
  const key = parseAddressKey(text);
  if (recentKeys.size >= RECENT_KEYS_MAX) recentKeys.clear();
  recentKeys.set(text, key);
  return key;
}

function parseAddressKey(text: string): string | null {
  const raw = stripBrackets(text);
  if (raw.length === 0 || raw.length > 64) return null;
  // Dotted quads only: ipaddr.js would also read "127.1" or "0x7f.0.0.1", spellings no socket or proxy writes.
  if (ipaddr.IPv4.isValidFourPartDecimal(raw)) return ipaddr.IPv4.parse(raw).toString();
  if (!ipaddr.IPv6.isValid(raw)) return null;
  const v6 = ipaddr.IPv6.parse(raw);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  // The /64: the first four 16-bit groups; the zone id (fe80::1%eth0) names an interface, not a caller.
  const prefix = v6.parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(prefix).toRFC5952String()}/64`;
}

/** A compiled proxy list: whether an address text is one of the operator's proxies, answers kept per text. */
type ProxyMatcher = (address: string) => boolean;

/** Compiled once per configuration (the list object is the configuration's own), never per request. */
const matchers = new WeakMap<readonly string[], ProxyMatcher>();

function matcherFor(proxies: readonly string[]): ProxyMatcher {
  let matcher = matchers.get(proxies);
  if (matcher) return matcher;
  const ranges = proxies.map((range) => ipaddr.parseCIDR(range));
  const known = new Map<string, boolean>();
  matcher = (text: string): boolean => {
    const cached = known.get(text);
    if (cached !== undefined) return cached;
    const trusted = isInRanges(stripBrackets(text), ranges);
    if (known.size >= RECENT_KEYS_MAX) known.clear();
    if (text.length <= 80) known.set(text, trusted);
    return trusted;
  };
  matchers.set(proxies, matcher);
  return matcher;
}

function isInRanges(raw: string, ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][]): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(raw)) address = ipaddr.IPv4.parse(raw);
  else if (raw.length <= 64 && ipaddr.IPv6.isValid(raw)) address = ipaddr.process(raw);
  else return false;
  return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

function forwardedChain(headers: HeaderReader): string[] {
  const raw = headers.get("x-forwarded-for");
  if (!raw) return [];
  return raw
    .split(",")
    .map((part) => stripBrackets(part))
    .filter((part) => part.length > 0);
}

/** The caller's address text by the TRUSTED_PROXY policy, or undefined when the request carries none we trust. */
function trustedAddress(headers: HeaderReader, policy: TrustedProxy, peerStamped: boolean): string | undefined {
  const peer = peerStamped ? (headers.get(PEER_HEADER) ?? undefined) : undefined;
  switch (policy.kind) {
    case "none":
      // Only the socket. X-Forwarded-For is the client's to write here, so it never counts.
      return peer;
    case "vercel": {
      // Vercel overwrites these headers with the connecting address; a client cannot set them through the platform.
      const vercel = headers.get("x-vercel-forwarded-for") ?? headers.get("x-real-ip");
      return vercel ? vercel.split(",")[0] : peer;
    }
    case "hops": {
      // A peer that is not one of our proxies reached the port directly: its X-Forwarded-For is its own invention.
      if (peer !== undefined && !matcherFor(policy.proxies)(peer)) return peer;
      // Rightmost entries were appended by our trusted proxies; the socket is the nearest hop. Without the
      // stamp (a bare `next start`) the nearest proxy's own address is unknown, but the entries it and the
      // others appended are the same: the caller is still the hops-th entry from the right.
      const forwarded = forwardedChain(headers);
      const chain = peer ? [...forwarded, peer] : forwarded;
      const index = chain.length - (peer ? 1 : 0) - policy.hops;
      return chain[Math.max(0, index)];
    }
    case "proxies": {
      // From the socket leftwards, skip our own proxies: the first address that is not one is the caller
      // (all of them proxies: the leftmost). Without the stamp the walk starts at X-Forwarded-For's last entry.
      const isProxy = matcherFor(policy.proxies);
      const forwarded = forwardedChain(headers);
      const chain = peer !== undefined ? [...forwarded, peer] : forwarded;
      let index = chain.length - 1;
      while (index > 0 && isProxy(chain[index])) index -= 1;
      return chain[index];
    }
  }
}

/**
 * The caller key of a request: see the module comment; NO_ADDRESS_KEY when no trusted address is known.
 * `peerStamped`: whether PEER_HEADER (and CALLER_HEADER) are this process's own stamps (server.ts started it).
 */
export function callerKey(headers: HeaderReader, policy?: TrustedProxy, peerStamped: boolean = startedByServerEntry()): string {
  if (peerStamped) {
    const stamped = headers.get(CALLER_HEADER);
    if (stamped) return stamped;
  }
  return deriveCallerKey(headers, policy, peerStamped);
}

/** The caller key derived from the addresses (what the listener stamps as CALLER_HEADER): never reads that header. */
export function deriveCallerKey(headers: HeaderReader, policy: TrustedProxy = getConfig().trustedProxy, peerStamped: boolean = startedByServerEntry()): string {
  const address = trustedAddress(headers, policy, peerStamped);
  return (address !== undefined ? addressKey(address) : null) ?? NO_ADDRESS_KEY;
}
