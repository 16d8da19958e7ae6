// Where webhooks may go. Production: https only, and never to a private, loopback, link-local, unique-local,
// carrier-grade NAT, multicast or otherwise reserved address (an IPv4-mapped IPv6 address is judged as the
// IPv4 address it maps). WEBHOOK_ALLOW_PRIVATE=1 (tests, local use) allows http and any address. Checked when
// an endpoint is added and again at every delivery: the scheme before anything is sent (an http:// endpoint
// added under the flag gets nothing in plaintext once the flag is 0, `plaintextRefusal`), the addresses on the
// very DNS answer the connection then uses (./send.ts passes `checkedLookup` to the socket), so a DNS answer
// that changes cannot slip through.
import dns from "node:dns";
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { getConfig } from "@/lib/config";

export function privateAddressesAllowed(): boolean {
  return getConfig().webhooks.allowPrivate;
}

export class WebhookAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookAddressError";
  }
}

/** True for an address a webhook must not reach: anything but ordinary global unicast. */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  // process() turns ::ffff:a.b.c.d into a.b.c.d, so a mapped private address is judged as private.
  return ipaddr.process(address).range() !== "unicast";
}

/** The URL, parsed and checked for its scheme (https, or http only with the flag); throws WebhookAddressError. */
export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookAddressError("not an absolute URL");
  }
  const allowed = privateAddressesAllowed() ? ["https:", "http:"] : ["https:"];
  if (!allowed.includes(url.protocol))
    throw new WebhookAddressError(privateAddressesAllowed() ? "only http and https URLs" : "only https URLs (http needs WEBHOOK_ALLOW_PRIVATE=1)");
  if (url.username || url.password) throw new WebhookAddressError("credentials in the URL are not allowed");
  if (url.hash) throw new WebhookAddressError("a fragment is not allowed");
  return url;
}

/** The reason an endpoint's URL must not be sent to now (its scheme), or undefined when it may: checked at every delivery. */
export function plaintextRefusal(url: URL): string | undefined {
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && privateAddressesAllowed()) return undefined;
  if (url.protocol === "http:") return "not sent: an http:// endpoint is delivered only while WEBHOOK_ALLOW_PRIVATE=1 (use https, or set the flag on the server for local use)";
  return `not sent: only http and https URLs (${url.protocol})`;
}

/** What `webhook:add` says about a URL it accepted only thanks to WEBHOOK_ALLOW_PRIVATE=1; undefined for a public https one. */
export async function needsAllowPrivateNote(url: URL): Promise<string | undefined> {
  let privateAddress = false;
  try {
    const host = hostOf(url);
    const answers = ipaddr.isValid(host) ? [{ address: host }] : await lookup(host, { all: true, verbatim: true });
    privateAddress = answers.some((answer) => isForbiddenAddress(answer.address));
  } catch {
    privateAddress = false;
  }
  if (url.protocol !== "http:" && !privateAddress) return undefined;
  const why = url.protocol === "http:" && privateAddress ? "an http:// URL at a private address" : url.protocol === "http:" ? "an http:// URL" : "a private address";
  return `Note: ${why}: the running server delivers here only while it too has WEBHOOK_ALLOW_PRIVATE=1 (otherwise each attempt fails and webhook:list shows why).`;
}

function hostOf(url: URL): string {
  // URL keeps IPv6 literals in brackets.
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Resolves the host; every address must be allowed (an attacker's DNS may mix a public and a private one). */
export async function checkedAddresses(host: string): Promise<{ address: string; family: number }[]> {
  const answers = ipaddr.isValid(host) ? [{ address: host, family: ipaddr.parse(host).kind() === "ipv6" ? 6 : 4 }] : await lookup(host, { all: true, verbatim: true });
  if (answers.length === 0) throw new WebhookAddressError(`${host} does not resolve`);
  if (!privateAddressesAllowed()) {
    const forbidden = answers.find((answer) => isForbiddenAddress(answer.address));
    if (forbidden) throw new WebhookAddressError(`${host} resolves to a private or reserved address (${forbidden.address}); set WEBHOOK_ALLOW_PRIVATE=1 to allow it`);
  }
  return answers;
}

/** Checks a URL fully (scheme and resolved addresses), as at add time. */
export async function checkWebhookUrl(text: string): Promise<URL> {
  const url = parseWebhookUrl(text);
  try {
    await checkedAddresses(hostOf(url));
  } catch (error) {
    if (error instanceof WebhookAddressError) throw error;
    throw new WebhookAddressError(`${hostOf(url)} does not resolve`);
  }
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for node:http(s) that connects only to an address that passed the check. */
export function checkedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  checkedAddresses(hostname.replace(/^\[(.*)\]$/, "$1")).then(
    (answers) => {
      if (options.all) callback(null, answers);
      else callback(null, answers[0].address, answers[0].family);
    },
    (error: unknown) => callback(error instanceof Error ? (error as NodeJS.ErrnoException) : new Error(String(error)), "", 4),
  );
}
