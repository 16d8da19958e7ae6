// Verified agents (issue 44): the one entry the surfaces call. A request is "verified as origin X with key K",
// "unsigned", or carries a signature that is present but not accepted (with the reason). One directory cache and
// one nonce memory per process.
import { systemClock, type Clock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { processSingleton } from "@/lib/registry";
import type { ApiRequest } from "@/lib/http/api";
import { VERIFIED_AGENT_KEY_PREFIX } from "@/lib/http/client-ip";
import { DirectoryCache } from "./directory";
import { NonceMemory } from "./nonces";
import { verifyAgentRequest, type AgentIdentity } from "./verify";

export type { AgentIdentity, SignatureFailure } from "./verify";
export { isSigned } from "./verify";
import { isSigned } from "./verify";

// One per process, not per copy of this module (DEVELOPING.md "One registry of process state"): a nonce the front's
// copy accepted must not be accepted again by Next's, and a directory is fetched once for both.
const { directories, nonces } = processSingleton("agent-identity", () => ({ directories: new DirectoryCache(systemClock), nonces: new NonceMemory() }));

function directoryAllowPrivate(): boolean {
  return getConfig().agentDirectoryAllowPrivate;
}

/** Who signed this request, verified against its agent's key directory (never throws, never a 500). */
export async function agentIdentityOf(request: ApiRequest, clock: Clock = systemClock): Promise<AgentIdentity> {
  const allowPrivate = directoryAllowPrivate();
  // @authority is this service's public host: the agent signed the URL it addressed, which is BASE_URL's.
  const url = `${getConfig().baseUrl}${request.target.startsWith("/") ? request.target : `/${request.target}`}`;
  return verifyAgentRequest(
    { method: request.method, url, headers: request.headers },
    {
      clock,
      allowHttp: allowPrivate,
      directory: (origin) => directories.lookup(origin, allowPrivate),
      rememberNonce: (key, until) => nonces.remember(key, until, Math.floor(clock.now().getTime() / 1000)),
    },
  );
}

/** The caller key of a verified agent: its origin, in a namespace no address key can take (lib/http/client-ip.ts). */
export function agentCallerKey(origin: string): string {
  return `${VERIFIED_AGENT_KEY_PREFIX}${origin}`;
}

/**
 * The key a public read is counted under (issue 44): a verified agent's origin, otherwise `addressKey`. Public reads
 * never refuse for a signature: one that is not accepted is answered, and counted, as unsigned.
 */
export function publicCallerKey(request: ApiRequest, addressKey: string, clock: Clock = systemClock): string | Promise<string> {
  // Unsigned: answered synchronously, so an unsigned request takes exactly the path (and the turns) it took before.
  if (!isSigned(request.headers)) return addressKey;
  return agentIdentityOf(request, clock).then((identity) => (identity.kind === "verified" ? agentCallerKey(identity.origin) : addressKey));
}
