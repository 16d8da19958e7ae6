// One HTTP attempt: a signed POST (Standard Webhooks headers) with a 10 s deadline, redirects not followed
// (a 3xx is a failure), the connection made only to an address that passed ./address.ts's check, and at most
// 256 characters of the answer kept.
// Connections are reused: one keep-alive agent per endpoint origin (and address policy), at most
// MAX_SOCKETS_PER_ORIGIN sockets, idle ones closed after IDLE_SOCKET_MS (sooner if the receiver's Keep-Alive
// hint says so). Every new connection still resolves through `checkedLookup`. A receiver may close an idle
// socket just as we reuse it: that attempt is sent again once on a fresh connection (the documented Node way,
// request.reusedSocket + ECONNRESET; a receiver dedupes by webhook-id), within the same deadline.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { getConfig } from "@/lib/config";
import { checkedAddresses, checkedLookup, plaintextRefusal, privateAddressesAllowed, WebhookAddressError } from "./address";

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
  // Node connects to an IP literal without calling `lookup`: check such an address here.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (net.isIP(host)) {
    try {
      await checkedAddresses(host);
    } catch (error) {
      return { status: null, ok: false, excerpt: error instanceof WebhookAddressError ? error.message : "address refused" };
    }
  }
  const client = url.protocol === "https:" ? https : http;
  const headers = {
    "content-type": "application/json",
    "user-agent": "agent-gate-webhooks/1",
    "webhook-id": input.webhookId,
    "webhook-timestamp": String(Math.floor(input.timestamp.getTime() / 1000)),
    "webhook-signature": signatureHeader(input.secrets, input.webhookId, input.timestamp, input.payload),
  };
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, excerpt: outcome.excerpt.slice(0, EXCERPT_CHARS) });
    };
    // `fresh`: a connection of its own (the retry after a reused socket was closed under us).
    const attempt = (fresh: boolean) => {
      const sent = client.request(url, { method: "POST", headers, lookup: checkedLookup, agent: fresh ? false : agentFor(url) }, (response) => {
        const status = response.statusCode ?? 0;
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
          // Enough for the excerpt: stop reading (the rest is never stored; the socket is not reused).
          if (text.length >= EXCERPT_CHARS) {
            finish({ status, ok: status >= 200 && status < 300, excerpt: text });
            response.destroy();
          }
        });
        response.on("end", () => finish({ status, ok: status >= 200 && status < 300, excerpt: text }));
        response.on("error", () => finish({ status, ok: status >= 200 && status < 300, excerpt: text }));
      });
      request = sent;
      sent.on("error", (error: NodeJS.ErrnoException) => {
        if (!settled && !fresh && sent.reusedSocket && error.code === "ECONNRESET") attempt(true);
        else finish({ status: null, ok: false, excerpt: describeError(error) });
      });
      sent.end(input.payload);
    };
    const timer = setTimeout(() => {
      request?.destroy();
      finish({ status: null, ok: false, excerpt: `no answer within ${timeoutMs() / 1000} s` });
    }, timeoutMs());
    attempt(false);
  });
}

/** A short reason without internals of our own (the receiver's host is the operator's, not a secret). */
function describeError(error: NodeJS.ErrnoException): string {
  if (error.name === "WebhookAddressError") return error.message;
  return error.code ? `connection failed (${error.code})` : "connection failed";
}
