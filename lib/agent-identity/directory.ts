// An agent's key directory (STANDARDS.md §15): GET {origin}/.well-known/http-message-signatures-directory, a JWKS
// whose response is signed by its own keys (tag http-message-signatures-directory, "@authority";req). Fetched
// safely, through lib/outbound as webhooks are sent: https only (http and private addresses only with
// AGENT_DIRECTORY_ALLOW_PRIVATE=1), every address of the DNS answer the socket uses checked at connect time, at most
// 2 s and 64 KiB, no redirects.
// Cached by Cache-Control between 1 minute and 1 day, failures for a short while, one fetch per origin at a
// time: with a cached directory a request costs no network at all. A keyid the cached directory lacks (the agent has
// rotated its key) fetches it again, at most once per DIRECTORY_REFETCH_SECONDS per origin, as jose's remote JWKS does
// for an unknown kid (its cooldown is 30 s too): a rotated key is accepted at once, and a flood of made-up keyids costs
// one fetch per origin per 30 s.
import { calculateJwkThumbprint, type JWK } from "jose";
import { isInnerList, parseDictionary } from "structured-headers";
import { createPublicKey } from "node:crypto";
import { isSignatureError, verifySignature, type Verifier } from "http-message-sig";
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY, Tag } from "web-bot-auth";
import type { Clock } from "@/lib/clock";
import { sendOutbound } from "@/lib/outbound";
import type { DirectoryLookup } from "./verify";
import { CLOCK_SKEW_SECONDS, ed25519Verifier } from "./verify";

export const DIRECTORY_PATH = HTTP_MESSAGE_SIGNATURES_DIRECTORY;
export const DIRECTORY_TIMEOUT_MS = 2000;
export const DIRECTORY_MAX_BYTES = 64 * 1024;
export const MIN_CACHE_SECONDS = 60;
export const MAX_CACHE_SECONDS = 86_400;
/** A cached directory that lacks a request's keyid is fetched again at most this often per origin. */
export const DIRECTORY_REFETCH_SECONDS = 30;
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

/** One GET of a directory over the network (lib/outbound: its address policy, 2 s, 64 KiB, redirects not followed). */
export const fetchDirectoryOverNetwork: DirectoryFetcher = async (url, allowPrivate) => {
  const sent = await sendOutbound({
    url,
    method: "GET",
    headers: { accept: "application/http-message-signatures-directory+json", "user-agent": "agent-gate-directory/1" },
    policy: { allowPrivate, flag: "AGENT_DIRECTORY_ALLOW_PRIVATE" },
    timeoutMs: DIRECTORY_TIMEOUT_MS,
    maxBytes: DIRECTORY_MAX_BYTES,
    body: "whole",
  });
  if (!sent.ok) return { ok: false, detail: sent.detail };
  if (sent.status >= 300 && sent.status < 400) return { ok: false, detail: `the directory answered a redirect (${sent.status}), which is not followed` };
  if (sent.status !== 200) return { ok: false, detail: `the directory answered ${sent.status}` };
  const one = (name: string): string | null => {
    const value = sent.headers[name];
    return Array.isArray(value) ? value.join(", ") : (value ?? null);
  };
  return {
    ok: true,
    response: { status: sent.status, headers: { signature: one("signature"), signatureInput: one("signature-input"), cacheControl: one("cache-control") }, body: sent.body },
  };
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
      const key = createPublicKey({ key: publicJwk, format: "jwk" });
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
  /** Epoch milliseconds of the fetch that made it. */
  fetchedAt: number;
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
    return this.fetch(key, origin, allowPrivate);
  }

  /**
   * The origin's directory fetched again although it is cached (it lacks a request's keyid: a rotated key), unless it
   * was fetched less than DIRECTORY_REFETCH_SECONDS ago; undefined then (the cached one stands). A refetch that fails
   * leaves a good cached directory in place.
   */
  refetch(origin: string, allowPrivate: boolean): Promise<DirectoryLookup> | undefined {
    const key = `${allowPrivate ? "any" : "public"} ${origin}`;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    if (!this.mayRefetch(origin, allowPrivate) || this.inFlight.size >= MAX_FETCHES_IN_FLIGHT) return undefined;
    return this.fetch(key, origin, allowPrivate);
  }

  /** Whether refetch() would fetch the origin's directory now. */
  mayRefetch(origin: string, allowPrivate: boolean): boolean {
    const entry = this.entries.get(`${allowPrivate ? "any" : "public"} ${origin}`);
    return entry === undefined || entry.fetchedAt + DIRECTORY_REFETCH_SECONDS * 1000 <= this.clock.now().getTime();
  }

  private fetch(key: string, origin: string, allowPrivate: boolean): Promise<DirectoryLookup> {
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
    const kept = this.entries.get(key);
    if (!lookup.ok && kept !== undefined && kept.lookup.ok && kept.until > now) {
      // A refetch that failed: the directory still cached stays, and the cooldown counts from this attempt.
      kept.fetchedAt = now;
      return kept.lookup;
    }
    this.entries.delete(key);
    if (this.entries.size >= MAX_ORIGINS) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { lookup, until: now + seconds * 1000, fetchedAt: now });
    return lookup;
  }
}
