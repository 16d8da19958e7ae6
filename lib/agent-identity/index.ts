// Verified agents (issue 44): the one entry the surfaces call. A request is "verified as origin X with key K",
// "unsigned", or carries a signature that is present but not accepted (with the reason). One directory cache per
// process; nonces are accepted once for the whole fleet (lib/shared-state acceptOnce, scope NONCE_SCOPE). Under
// `npm start`, server.ts's listener verifies a signed request whose directory is cached before admission (its share
// is then the agent's, so a replay never takes it) and stamps the result (AGENT_HEADER): the handler reads that stamp
// instead of verifying again, since a nonce is accepted once. Where the handler verifies a public read itself, its
// nonce goes with its budget charge in one round trip (publicCaller, lib/rate-limit chargeCaller).
import { systemClock, type Clock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { processSingleton } from "@/lib/registry";
import { acceptOnce, type OnceClaim } from "@/lib/shared-state";
import type { ApiRequest, HeaderReader } from "@/lib/http/api";
import { AGENT_HEADER, VERIFIED_AGENT_KEY_PREFIX } from "@/lib/http/client-ip";
import { startedByServerEntry } from "@/lib/http/server-entry";
import { DirectoryCache } from "./directory";
import { readSignatureClaim, verifyAgentRequest, verifySignatureClaim, type AgentIdentity, type SignatureFailure, type VerificationDeps } from "./verify";

export type { AgentIdentity, SignatureFailure } from "./verify";
export { isSigned } from "./verify";
import { isSigned } from "./verify";

/** The once-scope of Web Bot Auth nonces in lib/shared-state (keys: "<origin> <keyid> <nonce>"). */
export const NONCE_SCOPE = "web-bot-auth-nonce";

// One per process, not per copy of this module (DEVELOPING.md "One registry of process state"): a directory is
// fetched once for both copies.
const { directories } = processSingleton("agent-identity", () => ({ directories: new DirectoryCache(systemClock) }));

function directoryAllowPrivate(): boolean {
  return getConfig().agentDirectoryAllowPrivate;
}

/** @authority is this service's public host: the agent signed the URL it addressed, which is BASE_URL's. */
function addressedUrl(target: string): string {
  return `${getConfig().baseUrl}${target.startsWith("/") ? target : `/${target}`}`;
}

/** nonces "accept": each verification accepts its nonce (one round trip of its own); "hand back": the caller does. */
function dependencies(clock: Clock, allowPrivate: boolean, nonces: "accept" | "hand back" = "accept"): VerificationDeps {
  return {
    clock,
    allowHttp: allowPrivate,
    directory: (origin) => directories.lookup(origin, allowPrivate),
    refetchDirectory: (origin) => directories.refetch(origin, allowPrivate),
    acceptNonce: nonces === "accept" ? (key, until) => acceptOnce(NONCE_SCOPE, key, until, clock) : undefined,
  };
}

/** Who signed this request, verified against its agent's key directory (never throws, never a 500). */
export async function agentIdentityOf(request: ApiRequest, clock: Clock = systemClock): Promise<AgentIdentity> {
  return (
    stampedIdentity(request.headers) ??
    verifyAgentRequest({ method: request.method, url: addressedUrl(request.target), headers: request.headers }, dependencies(clock, directoryAllowPrivate()))
  );
}

/** The caller key of a verified agent: its origin, in a namespace no address key can take (lib/http/client-ip.ts). */
export function agentCallerKey(origin: string): string {
  return `${VERIFIED_AGENT_KEY_PREFIX}${origin}`;
}

/** Who a public read is counted as: its key, and a verified signature's nonce still to accept with the charge. */
export interface PublicCaller {
  /** The verified agent's key, or the address's. */
  key: string;
  /** The address's key: what the request is counted under if its nonce turns out to be a replay. */
  addressKey: string;
  /** A verified signature's nonce, not accepted yet: the budget charge accepts it in the same round trip. */
  nonce?: OnceClaim;
}

/**
 * Who a public read is counted as (issue 44: a verified agent under its origin, otherwise its address), without
 * accepting a nonce the handler verifies here: lib/rate-limit chargeCaller accepts it with the budget charge, and counts
 * the request under its address if it was a replay. Unsigned: answered synchronously. Never rejects.
 */
export function publicCaller(request: ApiRequest, addressKey: string, clock: Clock = systemClock): PublicCaller | Promise<PublicCaller> {
  if (!isSigned(request.headers)) return { key: addressKey, addressKey };
  const stamped = stampedIdentity(request.headers);
  if (stamped !== null) return { key: stamped.kind === "verified" ? agentCallerKey(stamped.origin) : addressKey, addressKey };
  const verifying = verifyAgentRequest(
    { method: request.method, url: addressedUrl(request.target), headers: request.headers },
    dependencies(clock, directoryAllowPrivate(), "hand back"),
  );
  return verifying.then((identity): PublicCaller => {
    if (identity.kind !== "verified") return { key: addressKey, addressKey };
    const key = agentCallerKey(identity.origin);
    const nonce = identity.unacceptedNonce;
    return nonce === undefined ? { key, addressKey } : { key, addressKey, nonce: { scope: NONCE_SCOPE, key: nonce.key, untilEpochSeconds: nonce.until } };
  });
}

/**
 * The key a public read is counted under (issue 44): a verified agent's origin, otherwise `addressKey`. Public reads
 * never refuse for a signature: one that is not accepted is answered, and counted, as unsigned. Accepts the nonce
 * (for a budget kept elsewhere than lib/shared-state: the batch API's).
 */
export function publicCallerKey(request: ApiRequest, addressKey: string, clock: Clock = systemClock): string | Promise<string> {
  // Unsigned: answered synchronously, so an unsigned request takes exactly the path (and the turns) it took before.
  if (!isSigned(request.headers)) return addressKey;
  const keyOf = (identity: AgentIdentity): string => (identity.kind === "verified" ? agentCallerKey(identity.origin) : addressKey);
  const stamped = stampedIdentity(request.headers);
  return stamped !== null ? keyOf(stamped) : agentIdentityOf(request, clock).then(keyOf);
}

/** What server.ts's listener stamps for a signed request, and the caller key its admission share is then counted under. */
export interface ListenerIdentity {
  /** AGENT_HEADER's value (agentStamp); null: none, the handler verifies (a keyid its directory may have rotated in). */
  stamp: string | null;
  /** agentCallerKey of a verified origin; null: the address's key. */
  agentKey: string | null;
}

/**
 * The listener's one verification of a request (server.ts), with no network: undefined when it is unsigned or its
 * agent's directory is not cached (the handler then verifies, fetching it, as without the listener). A signature
 * malformed before any key is needed is refused here too. Never rejects.
 */
export function listenerIdentity(method: string, target: string, headers: HeaderReader, clock: Clock = systemClock): Promise<ListenerIdentity> | undefined {
  if (!isSigned(headers)) return undefined;
  const allowPrivate = directoryAllowPrivate();
  const read = readSignatureClaim(headers, allowPrivate);
  if (!read.ok) return Promise.resolve(listenerResult(read.identity));
  const cached = directories.cached(read.claim.origin, allowPrivate);
  if (cached === undefined) return undefined;
  // No network here: a keyid the cached directory lacks is left to the handler, which may fetch it again.
  const deps = { ...dependencies(clock, allowPrivate), directory: () => cached, refetchDirectory: undefined };
  const origin = read.claim.origin;
  return verifySignatureClaim({ method, url: addressedUrl(target), headers }, read.claim, deps).then((identity) =>
    identity.kind === "invalid" && identity.reason === "unknown_key" && directories.mayRefetch(origin, allowPrivate) ? { stamp: null, agentKey: null } : listenerResult(identity),
  );
}

function listenerResult(identity: AgentIdentity): ListenerIdentity {
  return { stamp: agentStamp(identity), agentKey: identity.kind === "verified" ? agentCallerKey(identity.origin) : null };
}

const FAILURES: ReadonlySet<string> = new Set<SignatureFailure>(["invalid_signature", "expired_signature", "replayed_signature", "unknown_key", "directory_unavailable"]);

/** AGENT_HEADER's value for a verification's result: `verified <thumbprint> <origin>` or `invalid <reason> <detail, URI-encoded>`. */
export function agentStamp(identity: AgentIdentity): string {
  if (identity.kind === "verified") return `verified ${identity.thumbprint} ${identity.origin}`;
  if (identity.kind === "invalid") return `invalid ${identity.reason} ${encodeURIComponent(identity.detail)}`;
  return "unsigned";
}

/**
 * The listener's result for this request, believed only when server.ts started the process (it replaces any
 * client-sent copy; under a bare `next start` the header is the client's own); null: none, verify here.
 */
export function stampedIdentity(headers: HeaderReader): AgentIdentity | null {
  if (!startedByServerEntry()) return null;
  const stamp = headers.get(AGENT_HEADER);
  return stamp ? parseAgentStamp(stamp) : null;
}

/** agentStamp read back; null for anything it does not write. */
export function parseAgentStamp(stamp: string): AgentIdentity | null {
  const [kind, first, rest, extra] = stamp.split(" ");
  if (kind === "unsigned" && first === undefined) return { kind: "unsigned" };
  if (first === undefined || rest === undefined || extra !== undefined) return null;
  if (kind === "verified") return { kind, thumbprint: first, origin: rest };
  if (kind === "invalid" && FAILURES.has(first)) {
    try {
      return { kind, reason: first as SignatureFailure, detail: decodeURIComponent(rest) };
    } catch {
      return null;
    }
  }
  return null;
}
