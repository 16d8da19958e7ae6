// Requests this service sends to addresses that others choose: webhook endpoints (an operator's) and agents' key
// directories (whatever origin a request names). One policy for where such a connection may go, and one bounded
// request (lib/webhooks/send.ts, lib/agent-identity/directory.ts).
// - Where: never a private, loopback, link-local, unique-local, carrier-grade NAT, multicast or otherwise reserved
//   address (an IPv4-mapped IPv6 address is judged as the IPv4 address it maps), unless the caller's flag allows it
//   (tests, local use). Checked on the very DNS answer the socket then uses (`lookup`), so an answer that changes
//   between a check and the connection cannot slip through; an IP literal, which Node connects to without a lookup,
//   is checked before the request.
// - How much: a deadline for the whole exchange, at most `maxBytes` of the answer read, redirects never followed
//   (a 3xx is an answer like any other: the caller decides).
import dns from "node:dns";
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import ipaddr from "ipaddr.js";

/** Where a request may connect: `allowPrivate` lifts the address check; `flag` is the setting that does (named in refusals). */
export interface AddressPolicy {
  allowPrivate: boolean;
  flag: string;
}

/** A destination refused by the address policy (its message names the host and the address, never a secret). */
export class OutboundAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundAddressError";
  }
}

/** True for an address an outbound request must not reach: anything but ordinary global unicast. */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  // process() turns ::ffff:a.b.c.d into a.b.c.d, so a mapped private address is judged as private.
  return ipaddr.process(address).range() !== "unicast";
}

/** A URL's host as DNS and the address check take it (URL keeps IPv6 literals in brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Resolves the host; every address must be allowed (an attacker's DNS may mix a public and a private one). */
export async function allowedAddresses(host: string, policy: AddressPolicy): Promise<{ address: string; family: number }[]> {
  const answers = ipaddr.isValid(host) ? [{ address: host, family: ipaddr.parse(host).kind() === "ipv6" ? 6 : 4 }] : await lookup(host, { all: true, verbatim: true });
  if (answers.length === 0) throw new OutboundAddressError(`${host} does not resolve`);
  if (!policy.allowPrivate) {
    const forbidden = answers.find((answer) => isForbiddenAddress(answer.address));
    if (forbidden) throw new OutboundAddressError(`${host} resolves to a private or reserved address (${forbidden.address}); set ${policy.flag}=1 to allow it`);
  }
  return answers;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for node:http(s) that connects only to an address the policy allows. */
export function checkedLookup(policy: AddressPolicy): (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void {
  return (hostname, options, callback) => {
    allowedAddresses(hostname.replace(/^\[(.*)\]$/, "$1"), policy).then(
      (answers) => (options.all ? callback(null, answers) : callback(null, answers[0]!.address, answers[0]!.family)),
      (error: unknown) => callback(error instanceof Error ? (error as NodeJS.ErrnoException) : new Error(String(error)), "", 4),
    );
  };
}

export interface OutboundRequest {
  url: URL;
  method: "GET" | "POST";
  headers: Readonly<Record<string, string>>;
  /** The request's body (a POST's). */
  payload?: string;
  policy: AddressPolicy;
  /** The whole exchange, connection included. */
  timeoutMs: number;
  /** The most of the answer's body that is read. */
  maxBytes: number;
  /**
   * `excerpt`: the status is the answer, and the body read up to `maxBytes` (or up to where it broke off) only tells
   * more; `whole`: the body is the answer, so one over `maxBytes` or broken off fails the request.
   */
  body: "excerpt" | "whole";
  /** A keep-alive agent to reuse connections from; none: a connection of its own, closed after the answer. */
  agent?: http.Agent;
}

/** An answer (its status, headers and the body read, as UTF-8 text), or why there is none. */
export type OutboundResult = { ok: true; status: number; headers: http.IncomingHttpHeaders; body: string } | { ok: false; detail: string };

/**
 * Sends one request under the policy and bounds. A connection reused from `agent` that the receiver closed just as it
 * was reused is tried once more on a fresh one, within the same deadline (the documented Node way: request.reusedSocket
 * and ECONNRESET), so the request may reach the receiver twice: only for what a receiver dedupes (webhooks).
 */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResult> {
  const { url, policy } = request;
  if (url.protocol !== "https:" && !(policy.allowPrivate && url.protocol === "http:"))
    return { ok: false, detail: policy.allowPrivate ? `only http and https URLs (${url.protocol})` : `only https URLs (http needs ${policy.flag}=1)` };
  // Node connects to an IP literal without calling `lookup`: check such an address here.
  const host = hostOf(url);
  if (ipaddr.isValid(host)) {
    try {
      await allowedAddresses(host, policy);
    } catch (error) {
      return { ok: false, detail: error instanceof OutboundAddressError ? error.message : "address refused" };
    }
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise<OutboundResult>((resolve) => {
    let settled = false;
    let current: http.ClientRequest | undefined;
    const finish = (result: OutboundResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever is still open goes: the rest of an answer is never read, so its socket is not reused.
      current?.destroy();
      resolve(result);
    };
    const attempt = (fresh: boolean): void => {
      const sent = client.request(
        url,
        { method: request.method, headers: request.headers, lookup: checkedLookup(policy), agent: fresh || !request.agent ? false : request.agent },
        (response) => {
          const status = response.statusCode ?? 0;
          const chunks: Buffer[] = [];
          let size = 0;
          const excerpt = request.body === "excerpt";
          const answer = (): void => finish({ ok: true, status, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") });
          const tooLarge = (): void => finish({ ok: false, detail: `the answer is larger than ${request.maxBytes} bytes` });
          const declared = Number(response.headers["content-length"]);
          if (!excerpt && Number.isFinite(declared) && declared > request.maxBytes) return tooLarge();
          response.on("data", (chunk: Buffer) => {
            const room = request.maxBytes - size;
            chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
            size += chunk.length;
            if (size > request.maxBytes) return excerpt ? answer() : tooLarge();
            if (size === request.maxBytes && excerpt) answer();
          });
          response.on("end", answer);
          response.on("error", () => (excerpt ? answer() : finish({ ok: false, detail: "the answer broke off" })));
        },
      );
      current = sent;
      sent.on("error", (error: NodeJS.ErrnoException) => {
        if (!settled && !fresh && sent.reusedSocket && error.code === "ECONNRESET") attempt(true);
        else finish({ ok: false, detail: describeError(error) });
      });
      sent.end(request.payload);
    };
    const timer = setTimeout(() => finish({ ok: false, detail: `no answer within ${request.timeoutMs / 1000} s` }), request.timeoutMs);
    attempt(false);
  });
}

/** A short reason: the policy's refusal as it is, otherwise the error code only (no internals of ours). */
function describeError(error: NodeJS.ErrnoException): string {
  // By name: the error came through node:net's lookup callback (and a bundle may hold another copy of the class).
  if (error.name === "OutboundAddressError") return error.message;
  return error.code ? `connection failed (${error.code})` : "connection failed";
}
