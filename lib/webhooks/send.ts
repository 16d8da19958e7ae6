// One HTTP attempt: a signed POST (Standard Webhooks headers) with a 10 s deadline, redirects not followed
// (a 3xx is a failure), the connection made only to an address that passed ./address.ts's check, and at most
// 256 characters of the answer kept.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { checkedAddresses, checkedLookup, WebhookAddressError } from "./address";

export const EXCERPT_CHARS = 256;

export function timeoutMs(): number {
  const raw = Number(process.env.WEBHOOK_TIMEOUT_SECONDS ?? "10");
  return (Number.isFinite(raw) && raw > 0 ? raw : 10) * 1000;
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
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, excerpt: outcome.excerpt.slice(0, EXCERPT_CHARS) });
    };
    const request = client.request(url, { method: "POST", headers, lookup: checkedLookup, agent: false }, (response) => {
      const status = response.statusCode ?? 0;
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        // Enough for the excerpt: stop reading (the rest is never stored).
        if (text.length >= EXCERPT_CHARS) {
          finish({ status, ok: status >= 200 && status < 300, excerpt: text });
          response.destroy();
        }
      });
      response.on("end", () => finish({ status, ok: status >= 200 && status < 300, excerpt: text }));
      response.on("error", () => finish({ status, ok: status >= 200 && status < 300, excerpt: text }));
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish({ status: null, ok: false, excerpt: `no answer within ${timeoutMs() / 1000} s` });
    }, timeoutMs());
    request.on("error", (error: NodeJS.ErrnoException) => finish({ status: null, ok: false, excerpt: describeError(error) }));
    request.end(input.payload);
  });
}

/** A short reason without internals of our own (the receiver's host is the operator's, not a secret). */
function describeError(error: NodeJS.ErrnoException): string {
  if (error.name === "WebhookAddressError") return error.message;
  return error.code ? `connection failed (${error.code})` : "connection failed";
}
