// An agent's key directory (STANDARDS.md §15): GET {origin}/.well-known/http-message-signatures-directory, a JWKS
// whose response is signed by its own keys (tag http-message-signatures-directory, "@authority";req). Fetched
// safely, as webhooks are sent: https only (http and private addresses only with AGENT_DIRECTORY_ALLOW_PRIVATE=1),
// every address of the DNS answer the socket uses checked at connect time, at most 2 s and 64 KiB, no redirects.
// Cached by Cache-Control between 1 minute and 1 day, failures for a short while, one fetch per origin at a
// time: with a cached directory a request costs no network at all.
import http from "node:http";
import https from "node:https";
import net from "node:net";
import dns from "node:dns";
import { lookup } from "node:dns/promises";
import { calculateJwkThumbprint, type JWK } from "jose";
import { isInnerList, parseDictionary } from "structured-headers";
import { createPublicKey } from "node:crypto";
import { isSignatureError, verifySignature, type Verifier } from "http-message-sig";
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY, Tag } from "web-bot-auth";
import type { Clock } from "@/lib/clock";
import { isForbiddenAddress } from "@/lib/outbound";
import type { DirectoryLookup } from "./verify";
import { CLOCK_SKEW_SECONDS, ed25519Verifier } from "./verify";

export const DIRECTORY_PATH = HTTP_MESSAGE_SIGNATURES_DIRECTORY;
export const DIRECTORY_TIMEOUT_MS = 2000;
export const DIRECTORY_MAX_BYTES = 64 * 1024;
export const MIN_CACHE_SECONDS = 60;
export const MAX_CACHE_SECONDS = 86_400;
/** A directory that could not be had is not asked for again sooner than this. */
export const NEGATIVE_CACHE_SECONDS = 15;
/** Keys read from one directory at most; more is not a directory an agent needs. */
const MAX_KEYS = 32;
/** Origins kept at most; past it the oldest entry goes. */
const MAX_ORIGINS = 1024;
/**
 * Directory fetches under way at once, over all origins. A signature is verified before any budget is charged (its
 * origin is the budget's key), so a flood naming new origins must not turn into as many outbound fetches: past this,
 * a new origin's directory counts as unavailable (not cached) until a fetch finishes.
 */
export const MAX_FETCHES_IN_FLIGHT = 16;
const DIRECTORY_TAG: string = Tag.HTTP_MESSAGE_SIGNAGURES_DIRECTORY;

/** A directory's answer as fetched: status, the headers read from it, the body text. */
export interface FetchedDirectory {
  status: number;
  headers: { signature: string | null; signatureInput: string | null; cacheControl: string | null };
  body: string;
}

export type FetchOutcome = { ok: true; response: FetchedDirectory } | { ok: false; detail: string };

export type DirectoryFetcher = (url: URL, allowPrivate: boolean) => Promise<FetchOutcome>;

class AddressRefused extends Error {}

/** Resolves the host; every address must be public unless private ones are allowed (a DNS answer may mix both). */
async function allowedAddresses(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }[]> {
  const answers = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  if (answers.length === 0) throw new AddressRefused(`${host} does not resolve`);
  if (!allowPrivate && answers.some((answer) => isForbiddenAddress(answer.address))) throw new AddressRefused(`${host} is a private or reserved address`);
  return answers;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

function checkedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    allowedAddresses(hostname.replace(/^\[(.*)\]$/, "$1"), allowPrivate).then(
      (answers) => (options.all ? callback(null, answers) : callback(null, answers[0].address, answers[0].family)),
      (error: unknown) => callback(error instanceof Error ? (error as NodeJS.ErrnoException) : new Error(String(error)), "", 4),
    );
  };
}

/** One GET of a directory over the network, bounded in time and size, redirects not followed. */
export const fetchDirectoryOverNetwork: DirectoryFetcher = async (url, allowPrivate) => {
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) return { ok: false, detail: "only https directories are fetched" };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  // Node connects to an IP literal without calling `lookup`: check such an address here.
  if (net.isIP(host)) {
    try {
      await allowedAddresses(host, allowPrivate);
    } catch (error) {
      return { ok: false, detail: error instanceof AddressRefused ? error.message : "address refused" };
    }
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise<FetchOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: FetchOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const request = client.get(
      url,
      { headers: { accept: "application/http-message-signatures-directory+json", "user-agent": "agent-gate-directory/1" }, lookup: checkedLookup(allowPrivate), agent: false },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) return finish({ ok: false, detail: `the directory answered a redirect (${status}), which is not followed` });
        if (status !== 200) return finish({ ok: false, detail: `the directory answered ${status}` });
        const declared = Number(response.headers["content-length"]);
        if (Number.isFinite(declared) && declared > DIRECTORY_MAX_BYTES) return finish({ ok: false, detail: `the directory is larger than ${DIRECTORY_MAX_BYTES} bytes` });
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > DIRECTORY_MAX_BYTES) return finish({ ok: false, detail: `the directory is larger than ${DIRECTORY_MAX_BYTES} bytes` });
          chunks.push(chunk);
        });
        response.on("end", () => {
          const one = (name: string) => {
            const value = response.headers[name];
            return Array.isArray(value) ? value.join(", ") : (value ?? null);
          };
          finish({
            ok: true,
            response: {
              status,
              headers: { signature: one("signature"), signatureInput: one("signature-input"), cacheControl: one("cache-control") },
              body: Buffer.concat(chunks).toString("utf8"),
            },
          });
        });
        response.on("error", () => finish({ ok: false, detail: "the directory's answer broke off" }));
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      finish({ ok: false, detail: error instanceof AddressRefused ? error.message : error.code ? `connection failed (${error.code})` : "connection failed" });
    });
    const timer = setTimeout(() => finish({ ok: false, detail: `no answer within ${DIRECTORY_TIMEOUT_MS / 1000} s` }), DIRECTORY_TIMEOUT_MS);
  });
};

/** Seconds to keep a directory: its max-age, held between 1 minute and 1 day (no-store and none: the minute). */
export function cacheSeconds(cacheControl: string | null): number {
  const match = cacheControl === null || /no-store|no-cache/i.test(cacheControl) ? null : /(?:^|[,\s])max-age\s*=\s*"?(\d{1,10})"?/i.exec(cacheControl);
  const seconds = match ? Number(match[1]) : 0;
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds));
}

/** The Ed25519 JWKs of a directory body as verifiers, by their RFC 7638 thumbprints; other key types are left out. */
async function ed25519Keys(body: string): Promise<Map<string, Verifier> | string> {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return "the directory is not JSON";
  }
  const keys = typeof document === "object" && document !== null && "keys" in document ? (document as { keys: unknown }).keys : undefined;
  if (!Array.isArray(keys)) return "the directory has no keys array";
  const out = new Map<string, Verifier>();
  for (const jwk of keys.slice(0, MAX_KEYS) as unknown[]) {
    if (typeof jwk !== "object" || jwk === null) continue;
    const { kty, crv, x } = jwk as Record<string, unknown>;
    if (kty !== "OKP" || crv !== "Ed25519" || typeof x !== "string") continue;
    try {
      const publicJwk: JWK = { kty, crv, x };
      const key = createPublicKey({ key: { kty, crv, x }, format: "jwk" });
      if (key.asymmetricKeyType !== "ed25519") continue;
      out.set(await calculateJwkThumbprint(publicJwk, "sha256"), ed25519Verifier(key));
    } catch {
      // A key that does not import is not a key of this directory.
    }
  }
  return out;
}

/**
 * The keys of a fetched directory that signed its response (one signature per key, tag
 * http-message-signatures-directory, covering "@authority";req): a key whose signature is missing or bad is not used.
 */
export async function verifiedDirectoryKeys(url: URL, response: FetchedDirectory, now: number): Promise<DirectoryLookup> {
  const keys = await ed25519Keys(response.body);
  if (typeof keys === "string") return { ok: false, detail: keys };
  if (keys.size === 0) return { ok: false, detail: "the directory holds no Ed25519 key" };
  const { signature, signatureInput } = response.headers;
  if (signature === null || signatureInput === null) return { ok: false, detail: "the directory's response is not signed" };
  let labels: string[];
  try {
    labels = [...parseDictionary(signatureInput)].filter(([, member]) => isInnerList(member) && member[1].get("tag") === DIRECTORY_TAG).map(([label]) => label);
  } catch {
    return { ok: false, detail: "the directory's Signature-Input is malformed" };
  }
  const message = {
    kind: "response" as const,
    status: response.status,
    fields: [
      { name: "signature", value: signature },
      { name: "signature-input", value: signatureInput },
    ],
    request: { kind: "request" as const, method: "GET", targetUri: url.href, fields: [] },
  };
  const signed = new Map<string, Verifier>();
  for (const label of labels.slice(0, MAX_KEYS)) {
    try {
      const verified = await verifySignature(message, {
        label,
        policy: {
          algorithms: ["ed25519"],
          requiredComponents: [{ name: "@authority", parameters: { req: true } }],
          requiredParameters: ["created", "expires", "keyid"],
          clockSkew: CLOCK_SKEW_SECONDS,
          now,
        },
        resolveVerifier: (candidate): Verifier => {
          const key = typeof candidate.parameters.keyid === "string" ? keys.get(candidate.parameters.keyid) : undefined;
          if (key === undefined) throw new Error("not a key of this directory");
          return key;
        },
      });
      const keyid = verified.parameters.keyid as string;
      signed.set(keyid, keys.get(keyid) as Verifier);
    } catch (error) {
      if (!isSignatureError(error)) throw error;
    }
  }
  if (signed.size === 0) return { ok: false, detail: "the directory's response carries no valid signature of its keys" };
  return { ok: true, keys: signed };
}

interface CacheEntry {
  lookup: DirectoryLookup;
  /** Epoch milliseconds. */
  until: number;
}

/** Directories by origin, cached as their Cache-Control says (within bounds), failures briefly. */
export class DirectoryCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<DirectoryLookup>>();

  constructor(
    private readonly clock: Clock,
    private readonly fetcher: DirectoryFetcher = fetchDirectoryOverNetwork,
  ) {}

  /** The origin's directory, from the cache or fetched (once at a time per origin). */
  lookup(origin: string, allowPrivate: boolean): DirectoryLookup | Promise<DirectoryLookup> {
    const key = `${allowPrivate ? "any" : "public"} ${origin}`;
    const cached = this.cachedEntry(key);
    if (cached !== undefined) return cached;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    if (this.inFlight.size >= MAX_FETCHES_IN_FLIGHT) return { ok: false, detail: "too many key directories are being fetched at once; retry shortly" };
    const fetching = this.fetchAndKeep(key, origin, allowPrivate).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  /**
   * The origin's directory if it is cached (a failure kept for NEGATIVE_CACHE_SECONDS too), undefined otherwise:
   * never a fetch (server.ts's listener verifies only against what is here).
   */
  cached(origin: string, allowPrivate: boolean): DirectoryLookup | undefined {
    return this.cachedEntry(`${allowPrivate ? "any" : "public"} ${origin}`);
  }

  private cachedEntry(key: string): DirectoryLookup | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.until > this.clock.now().getTime() ? entry.lookup : undefined;
  }

  /** Forgets every directory (tests). */
  clear(): void {
    this.entries.clear();
  }

  private async fetchAndKeep(key: string, origin: string, allowPrivate: boolean): Promise<DirectoryLookup> {
    const url = new URL(DIRECTORY_PATH, origin);
    const fetched = await this.fetcher(url, allowPrivate);
    const now = this.clock.now().getTime();
    let lookup: DirectoryLookup;
    let seconds = NEGATIVE_CACHE_SECONDS;
    if (!fetched.ok) lookup = fetched;
    else {
      lookup = await verifiedDirectoryKeys(url, fetched.response, Math.floor(now / 1000));
      if (lookup.ok) seconds = cacheSeconds(fetched.response.headers.cacheControl);
    }
    this.entries.delete(key);
    if (this.entries.size >= MAX_ORIGINS) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { lookup, until: now + seconds * 1000 });
    return lookup;
  }
}
