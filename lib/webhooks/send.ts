// One HTTP attempt: a signed POST (Standard Webhooks headers) through lib/outbound (its address policy, a deadline
// of WEBHOOK_TIMEOUT_SECONDS, redirects not followed: a 3xx is a failure), at most 256 characters of the answer kept.
// Connections are reused: one keep-alive agent per endpoint origin (and address policy), at most
// MAX_SOCKETS_PER_ORIGIN sockets, idle ones closed after IDLE_SOCKET_MS (sooner if the receiver's Keep-Alive
// hint says so). Every new connection still resolves through lib/outbound's checked lookup, and a reused socket the
// receiver closed under us is tried once more on a fresh one (a receiver dedupes by webhook-id).
import http from "node:http";
import https from "node:https";
import { Webhook } from "standardwebhooks";
import { getConfig } from "@/lib/config";
import { sendOutbound } from "@/lib/outbound";
import { plaintextRefusal, privateAddressesAllowed, webhookAddressPolicy } from "./address";

export const EXCERPT_CHARS = 256;
/** Sockets per origin: a send batch's deliveries to one endpoint all go at once. */
export const MAX_SOCKETS_PER_ORIGIN = 16;
/** An idle socket is closed after this long (below common receivers' keep-alive timeouts, e.g. Node's 5 s). */
export const IDLE_SOCKET_MS = 4000;
/** Agents kept at most (one per endpoint origin); past it the oldest is closed. */
const MAX_AGENTS = 256;

const agents = new Map<string, http.Agent>();

/** The keep-alive agent for an origin; keyed with the address policy, so a changed policy never reuses a socket. */
function agentFor(url: URL): http.Agent {
  const key = `${privateAddressesAllowed() ? "any" : "public"} ${url.origin}`;
  let agent = agents.get(key);
  if (!agent) {
    const options: http.AgentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_ORIGIN, maxFreeSockets: MAX_SOCKETS_PER_ORIGIN, timeout: IDLE_SOCKET_MS, scheduling: "lifo" };
    agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
    if (agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value as [string, http.Agent];
      oldest.destroy();
      agents.delete(oldestKey);
    }
    agents.set(key, agent);
  }
  return agent;
}

/** Closes every kept connection (tests, shutdown). */
export function closeWebhookConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export function timeoutMs(): number {
  return getConfig().webhooks.timeoutSeconds * 1000;
}

/** The webhook-signature header: one v1 signature per secret (old and new during a rotation), space-separated. */
export function signatureHeader(secrets: readonly string[], webhookId: string, timestamp: Date, payload: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(webhookId, timestamp, payload)).join(" ");
}

export interface SendOutcome {
  /** HTTP status, or null when no answer came (refused, timed out, address not allowed). */
  status: number | null;
  ok: boolean;
  excerpt: string;
}

export async function sendWebhook(input: { url: string; webhookId: string; payload: string; secrets: readonly string[]; timestamp: Date }): Promise<SendOutcome> {
  const url = new URL(input.url);
  // The scheme first: a signed payload never leaves in plaintext unless the flag is on now (not just when added).
  const refusal = plaintextRefusal(url);
  if (refusal !== undefined) return { status: null, ok: false, excerpt: refusal };
  const headers = {
    "content-type": "application/json",
    "user-agent": "agent-gate-webhooks/1",
    "webhook-id": input.webhookId,
    "webhook-timestamp": String(Math.floor(input.timestamp.getTime() / 1000)),
    "webhook-signature": signatureHeader(input.secrets, input.webhookId, input.timestamp, input.payload),
  };
  const sent = await sendOutbound({
    url,
    method: "POST",
    headers,
    payload: input.payload,
    policy: webhookAddressPolicy(),
    timeoutMs: timeoutMs(),
    // Enough bytes for the excerpt's characters, whatever their encoding; the rest is never read.
    maxBytes: EXCERPT_CHARS * 4,
    body: "excerpt",
    agent: agentFor(url),
  });
  if (!sent.ok) return { status: null, ok: false, excerpt: sent.detail.slice(0, EXCERPT_CHARS) };
  return { status: sent.status, ok: sent.status >= 200 && sent.status < 300, excerpt: sent.body.slice(0, EXCERPT_CHARS) };
}
