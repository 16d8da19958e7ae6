// Web Bot Auth verification (issue 44) with Cloudflare's reference signer as the client and a real local key
// directory, on an injectable clock: the created/expires window, the nonce, the keyid, both Signature-Agent
// forms, the directory's own signature, its fetch limits and its cache.
import { calculateJwkThumbprint } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { ManualClock } from "@/lib/clock";
import {
  cacheSeconds,
  DIRECTORY_REFETCH_SECONDS,
  DirectoryCache,
  fetchDirectoryOverNetwork,
  MAX_CACHE_SECONDS,
  MAX_FETCHES_IN_FLIGHT,
  MIN_CACHE_SECONDS,
  NEGATIVE_CACHE_SECONDS,
  type FetchOutcome,
} from "@/lib/agent-identity/directory";
import { OnceMemory } from "@/lib/shared-state/memory";
import { CLOCK_SKEW_SECONDS, verifyAgentRequest, type AgentIdentity } from "@/lib/agent-identity/verify";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryServer } from "../support/web-bot-agent";

const TARGET = "https://gate.example/agent/identity";
/** Real time (the directory server signs with its own clock); tests move the clock from here. */
const clock = new ManualClock(new Date());
let key: AgentKey;
let otherKey: AgentKey;
let directory: DirectoryServer;
let cache: DirectoryCache;
let nonces: OnceMemory;

function verify(headers: Record<string, string>, options: { url?: string; allowPrivate?: boolean } = {}): Promise<AgentIdentity> {
  const allowPrivate = options.allowPrivate ?? true;
  return verifyAgentRequest(
    { method: "POST", url: options.url ?? TARGET, headers: new Headers(headers) },
    {
      clock,
      allowHttp: allowPrivate,
      directory: (origin) => cache.lookup(origin, allowPrivate),
      refetchDirectory: (origin) => cache.refetch(origin, allowPrivate),
      acceptNonce: (nonceKey, until) => nonces.remember(nonceKey, until, Math.floor(clock.now().getTime() / 1000)),
    },
  );
}

beforeAll(async () => {
  key = await newAgentKey();
  otherKey = await newAgentKey();
  directory = await startDirectory([key], () => clock.now());
});
afterAll(() => directory.close());
afterEach(() => {
  clock.set(new Date());
  directory.setMode("ok");
  directory.setCacheControl("max-age=300");
});

function fresh(): void {
  cache = new DirectoryCache(clock, fetchDirectoryOverNetwork);
  nonces = new OnceMemory();
}

describe("verifyAgentRequest", () => {
  it("verifies web-bot-auth's signature (plain string Signature-Agent) as the origin and the key's JWK thumbprint", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() });
    expect(await verify(headers)).toEqual({ kind: "verified", origin: directory.origin, thumbprint: await calculateJwkThumbprint(key.publicJwk as never, "sha256") });
  });

  it("verifies the WG draft's dictionary form, covered with key=<label>", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now(), form: "dictionary" });
    expect(headers["signature-agent"]).toBe(`sig1="${directory.origin}"`);
    expect(await verify(headers)).toMatchObject({ kind: "verified", origin: directory.origin });
  });

  it("calls a request without Signature and Signature-Input unsigned, whatever else it carries", async () => {
    fresh();
    expect(await verify({})).toEqual({ kind: "unsigned" });
    expect(await verify({ "signature-agent": `"${directory.origin}"` })).toEqual({ kind: "unsigned" });
  });

  it("refuses a signature over another authority", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", "https://other.example/agent/identity", { created: clock.now() });
    expect(await verify(headers)).toMatchObject({ kind: "invalid", reason: "invalid_signature" });
  });

  it("refuses a signature past its expiry (beyond the skew), created in the future, or with too long a window", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now(), expires: new Date(clock.now().getTime() + 60_000) });
    clock.advance(60 + CLOCK_SKEW_SECONDS + 1);
    expect(await verify(headers)).toMatchObject({ kind: "invalid", reason: "expired_signature" });
    clock.set(new Date());
    const future = await signRequest(key, directory.origin, "POST", TARGET, { created: new Date(clock.now().getTime() + (CLOCK_SKEW_SECONDS + 5) * 1000) });
    expect(await verify(future)).toMatchObject({ kind: "invalid", reason: "expired_signature" });
    const long = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now(), expires: new Date(clock.now().getTime() + 3_600_000) });
    expect(await verify(long)).toMatchObject({ kind: "invalid", reason: "expired_signature" });
  });

  it("accepts a signature within the clock skew of its window", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now(), expires: new Date(clock.now().getTime() + 60_000) });
    clock.advance(60 + CLOCK_SKEW_SECONDS - 5);
    expect(await verify(headers)).toMatchObject({ kind: "verified" });
  });

  it("never accepts a nonce twice within the window, and a forged signature does not use up the nonce", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() });
    const forged = { ...headers, signature: headers.signature.replace(/:[A-Za-z0-9+/]{4}/, ":AAAA") };
    expect(await verify(forged)).toMatchObject({ kind: "invalid", reason: "invalid_signature" });
    expect(await verify(headers)).toMatchObject({ kind: "verified" });
    expect(await verify(headers)).toMatchObject({ kind: "invalid", reason: "replayed_signature" });
  });

  it("refuses a key that is not in the origin's directory", async () => {
    fresh();
    const headers = await signRequest(otherKey, directory.origin, "POST", TARGET, { created: clock.now() });
    expect(await verify(headers)).toMatchObject({ kind: "invalid", reason: "unknown_key" });
  });

  it("fetches a cached directory again for a keyid it lacks (a rotated key), at most once per 30 s per origin", async () => {
    fresh();
    directory.setCacheControl("max-age=86400");
    const rotated = await newAgentKey();
    const third = await newAgentKey();
    try {
      const before = directory.hits();
      expect(await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
      expect(directory.hits()).toBe(before + 1);
      // Within the cooldown of the first fetch, an unknown keyid is refused without a fetch.
      directory.setKeys([key, rotated]);
      expect(await verify(await signRequest(rotated, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "invalid", reason: "unknown_key" });
      expect(directory.hits()).toBe(before + 1);
      // Past it, the rotated key is accepted at once, though the cached directory had a day to live.
      clock.advance(DIRECTORY_REFETCH_SECONDS);
      expect(await verify(await signRequest(rotated, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
      expect(directory.hits()).toBe(before + 2);
      // A flood of made-up keyids costs one fetch per origin per 30 s.
      directory.setKeys([key, rotated, third]);
      for (let i = 0; i < 5; i++)
        expect(await verify(await signRequest(otherKey, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ reason: "unknown_key" });
      expect(directory.hits()).toBe(before + 2);
      clock.advance(DIRECTORY_REFETCH_SECONDS);
      expect(await verify(await signRequest(third, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
      expect(directory.hits()).toBe(before + 3);
      // A refetch that fails leaves the good directory in place.
      clock.advance(DIRECTORY_REFETCH_SECONDS);
      directory.setMode("down");
      expect(await verify(await signRequest(otherKey, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ reason: "unknown_key" });
      expect(await verify(await signRequest(rotated, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
    } finally {
      directory.setKeys([key]);
    }
  });

  it("refuses a signature without the web-bot-auth tag, or without Signature-Agent", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() });
    expect(await verify({ ...headers, "signature-input": headers["signature-input"].replace('tag="web-bot-auth"', 'tag="other"') })).toMatchObject({
      kind: "invalid",
      reason: "invalid_signature",
    });
    const withoutAgent: Record<string, string> = { signature: headers.signature, "signature-input": headers["signature-input"] };
    expect(await verify(withoutAgent)).toMatchObject({ kind: "invalid", reason: "invalid_signature" });
  });

  it("refuses an http:// Signature-Agent and a private address unless AGENT_DIRECTORY_ALLOW_PRIVATE allows them", async () => {
    fresh();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() });
    expect(await verify(headers, { allowPrivate: false })).toMatchObject({ kind: "invalid", reason: "invalid_signature" });
    const refused = await fetchDirectoryOverNetwork(new URL("/.well-known/http-message-signatures-directory", directory.origin.replace("http:", "https:")), false);
    expect(refused).toEqual({ ok: false, detail: expect.stringContaining("private or reserved") });
    const hits = directory.hits();
    const localhost = await fetchDirectoryOverNetwork(new URL(`https://localhost:${new URL(directory.origin).port}/.well-known/http-message-signatures-directory`), false);
    expect(localhost).toEqual({ ok: false, detail: expect.stringContaining("private or reserved") });
    expect(directory.hits()).toBe(hits);
  });
});

describe("key directories", () => {
  it.each([
    ["down", "connection"],
    ["too-large", "larger than 65536 bytes"],
    ["redirect", "redirect"],
    ["unsigned", "not signed"],
  ] as const)("a directory that is %s makes the signature directory_unavailable", async (mode, words) => {
    fresh();
    directory.setMode(mode);
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() });
    const result = await verify(headers);
    expect(result).toMatchObject({ kind: "invalid", reason: "directory_unavailable" });
    expect(result.kind === "invalid" && result.detail).toContain(words);
  });

  it("gives up on a directory that does not answer within 2 s", async () => {
    fresh();
    directory.setMode("hang");
    const started = Date.now();
    const headers = await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() });
    expect(await verify(headers)).toMatchObject({ kind: "invalid", reason: "directory_unavailable" });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("uses a cached directory without the network until its max-age passes", async () => {
    fresh();
    directory.setCacheControl("max-age=120");
    await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }));
    const hits = directory.hits();
    clock.advance(100);
    expect(await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
    expect(directory.hits()).toBe(hits);
    clock.advance(30);
    expect(await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
    expect(directory.hits()).toBe(hits + 1);
  });

  it("keeps a failure for a short while only", async () => {
    fresh();
    directory.setMode("down");
    expect(await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ reason: "directory_unavailable" });
    directory.setMode("ok");
    expect(await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ reason: "directory_unavailable" });
    clock.advance(NEGATIVE_CACHE_SECONDS + 1);
    expect(await verify(await signRequest(key, directory.origin, "POST", TARGET, { created: clock.now() }))).toMatchObject({ kind: "verified" });
  });

  it("fetches one origin's directory once for concurrent requests, and at most MAX_FETCHES_IN_FLIGHT directories at a time", async () => {
    const waiting: ((outcome: FetchOutcome) => void)[] = [];
    const fetched: string[] = [];
    const slow = new DirectoryCache(clock, (url) => {
      fetched.push(url.origin);
      return new Promise<FetchOutcome>((resolve) => waiting.push(resolve));
    });
    const same = [slow.lookup("https://a0.example", false), slow.lookup("https://a0.example", false)];
    const others = Array.from({ length: MAX_FETCHES_IN_FLIGHT - 1 }, (_, i) => slow.lookup(`https://a${i + 1}.example`, false));
    expect(fetched).toHaveLength(MAX_FETCHES_IN_FLIGHT);
    expect(await slow.lookup("https://one-too-many.example", false)).toEqual({ ok: false, detail: expect.stringContaining("too many") });
    expect(fetched).toHaveLength(MAX_FETCHES_IN_FLIGHT);
    for (const resolve of waiting) resolve({ ok: false, detail: "down" });
    await Promise.all([...same, ...others]);
  });

  it("holds Cache-Control between one minute and one day", () => {
    expect(cacheSeconds(null)).toBe(MIN_CACHE_SECONDS);
    expect(cacheSeconds("max-age=5")).toBe(MIN_CACHE_SECONDS);
    expect(cacheSeconds("public, max-age=600")).toBe(600);
    expect(cacheSeconds("max-age=99999999")).toBe(MAX_CACHE_SECONDS);
    expect(cacheSeconds("no-store, max-age=600")).toBe(MIN_CACHE_SECONDS);
  });
});

describe("hostile signature headers", () => {
  it("any Signature, Signature-Input and Signature-Agent text is answered as unsigned, verified or invalid, never thrown", async () => {
    fresh();
    const text = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme-ascii" }),
      fc.constantFrom('sig1=("@authority");tag="web-bot-auth";keyid="x";created=1;expires=2', '"https://a.example"'),
    );
    await fc.assert(
      fc.asyncProperty(fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }), async (signature, input, agent) => {
        const headers = new Map<string, string>();
        if (signature !== undefined) headers.set("signature", signature);
        if (input !== undefined) headers.set("signature-input", input);
        if (agent !== undefined) headers.set("signature-agent", agent);
        const result = await verifyAgentRequest(
          { method: "POST", url: TARGET, headers: { get: (name) => headers.get(name) ?? null } },
          { clock, allowHttp: false, directory: async () => ({ ok: false, detail: "none" }), acceptNonce: () => true },
        );
        expect(["unsigned", "invalid"]).toContain(result.kind);
      }),
      { numRuns: 300 },
    );
  });
});
