// The two Web Bot Auth header readings this service makes before RFC 9421 verification: which signature of
// Signature-Input is the web-bot-auth one, and which origin Signature-Agent names (both forms in use). Structured
// Fields parsing is `structured-headers`' (RFC 8941/9651); what is read from it, and the URL rules, are here.
import { isInnerList, parseDictionary, parseItem, Token, type BareItem } from "structured-headers";
import { HTTP_MESSAGE_SIGNATURE_TAG, SIGNATURE_AGENT_HEADER } from "web-bot-auth";
import type { ComponentDescriptor } from "http-message-sig";

/** Longest Signature-Agent URL read: an origin, with room for a long host name. */
const MAX_AGENT_URL_LENGTH = 512;

/** The label of the first Signature-Input member tagged web-bot-auth, or null (none, or not a dictionary). */
export function webBotAuthLabel(signatureInput: string): string | null {
  let dictionary;
  try {
    dictionary = parseDictionary(signatureInput);
  } catch {
    return null;
  }
  for (const [label, member] of dictionary) {
    if (isInnerList(member) && member[1].get("tag") === HTTP_MESSAGE_SIGNATURE_TAG) return label;
  }
  return null;
}

export type AgentOrigin = { ok: true; origin: string; component: string | ComponentDescriptor } | { ok: false; detail: string };

/**
 * The origin named by Signature-Agent, and the component the signature must cover for it. The reference package
 * (web-bot-auth 0.1.x) sends one quoted string, covered as `"signature-agent"`; the WG draft sends a dictionary
 * whose member is named by the signature's label, covered as `"signature-agent";key="<label>"`.
 */
export function parseSignatureAgent(header: string | null, label: string, allowHttp: boolean): AgentOrigin {
  if (header === null) return { ok: false, detail: "Signature-Agent is required: it names the origin whose key directory holds the key" };
  const member = dictionaryMember(header, label);
  if (member !== undefined) return originOf(member, allowHttp, { name: SIGNATURE_AGENT_HEADER, parameters: { key: label } });
  let item: BareItem;
  try {
    item = parseItem(header)[0];
  } catch {
    return { ok: false, detail: `Signature-Agent must be a quoted URL, or a dictionary with a member named ${label}` };
  }
  return originOf(item, allowHttp, SIGNATURE_AGENT_HEADER);
}

function dictionaryMember(header: string, label: string): BareItem | undefined {
  // A dictionary starts with a key (a lowercase letter or "*"): the quoted string form is not tried as one, since each
  // failed parse builds an Error with its stack, which cost more than the rest of reading the headers (bench/README.md).
  const first = header.charCodeAt(header.length - header.trimStart().length);
  if (first !== 0x2a && !(first >= 0x61 && first <= 0x7a)) return undefined;
  try {
    const member = parseDictionary(header).get(label);
    return member === undefined || isInnerList(member) ? undefined : member[0];
  } catch {
    return undefined;
  }
}

function originOf(value: BareItem, allowHttp: boolean, component: string | ComponentDescriptor): AgentOrigin {
  // A bare token (https://agent.example without quotes) is how some early signers spelled it.
  const text = typeof value === "string" ? value : value instanceof Token ? value.toString() : null;
  if (text === null || text.length > MAX_AGENT_URL_LENGTH) return { ok: false, detail: "Signature-Agent must name an https origin" };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, detail: "Signature-Agent is not an absolute URL" };
  }
  const schemes = allowHttp ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) return { ok: false, detail: "Signature-Agent must be an https:// origin" };
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) {
    return { ok: false, detail: "Signature-Agent must be an origin only (no path, query, fragment or credentials)" };
  }
  return { ok: true, origin: url.origin, component };
}
