// Where webhooks may go. Production: https only, and never to a private or reserved address (lib/outbound's policy,
// with WEBHOOK_ALLOW_PRIVATE=1 as its flag: tests and local use, which also allows http). Checked when an endpoint is
// added and again at every delivery: the scheme before anything is sent (an http:// endpoint added under the flag
// gets nothing in plaintext once the flag is 0, `plaintextRefusal`), the addresses on the very DNS answer the
// connection then uses (lib/outbound checks them at connect time).
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { getConfig } from "@/lib/config";
import { allowedAddresses, hostOf, isForbiddenAddress, OutboundAddressError, type AddressPolicy } from "@/lib/outbound";

export function privateAddressesAllowed(): boolean {
  return getConfig().webhooks.allowPrivate;
}

/** lib/outbound's address policy for webhook deliveries, as the configuration has it now. */
export function webhookAddressPolicy(): AddressPolicy {
  return { allowPrivate: privateAddressesAllowed(), flag: "WEBHOOK_ALLOW_PRIVATE" };
}

export class WebhookAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookAddressError";
  }
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

/** Checks a URL fully (scheme and resolved addresses), as at add time. */
export async function checkWebhookUrl(text: string): Promise<URL> {
  const url = parseWebhookUrl(text);
  try {
    await allowedAddresses(hostOf(url), webhookAddressPolicy());
  } catch (error) {
    if (error instanceof OutboundAddressError) throw new WebhookAddressError(error.message);
    throw new WebhookAddressError(`${hostOf(url)} does not resolve`);
  }
  return url;
}
