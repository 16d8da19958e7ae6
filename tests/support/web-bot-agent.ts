// A Web Bot Auth agent for tests, built on Cloudflare's reference package (`web-bot-auth`) as the independent
// signer: Ed25519 keys, signed requests, and a local key directory server whose response is signed as the draft
// requires (web-bot-auth's directoryResponseHeaders). The server can misbehave on demand (down, too large, a
// redirect, unsigned) for the refusal cases.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { directoryResponseHeaders, generateNonce, HTTP_MESSAGE_SIGNATURE_TAG, HTTP_MESSAGE_SIGNATURES_DIRECTORY, MediaType, signatureHeaders, type Signer } from "web-bot-auth";
import { signerFromJWK } from "web-bot-auth/crypto";
import { createSignature, webcrypto } from "http-message-sig";

export interface AgentKey {
  signer: Signer;
  publicJwk: JsonWebKey;
  privateKey: CryptoKey;
}

export async function newAgentKey(): Promise<AgentKey> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const privateJwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  const publicJwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { signer: await signerFromJWK(privateJwk), publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x }, privateKey: pair.privateKey };
}

export type DirectoryMode = "ok" | "down" | "too-large" | "redirect" | "unsigned" | "hang";

export interface DirectoryServer {
  origin: string;
  /** Requests the directory has answered. */
  hits(): number;
  setMode(mode: DirectoryMode): void;
  setCacheControl(value: string): void;
  /** Serves these keys from now on (an agent rotating its key). */
  setKeys(keys: AgentKey[]): void;
  close(): Promise<void>;
}

/** A local key directory (http, 127.0.0.1) serving `keys`, its response signed by each of them. */
export async function startDirectory(keys: AgentKey[], now: () => Date = () => new Date()): Promise<DirectoryServer> {
  let mode: DirectoryMode = "ok";
  let cacheControl = "max-age=300";
  let hits = 0;
  const server = http.createServer((request, response) => {
    hits += 1;
    if (request.url !== HTTP_MESSAGE_SIGNATURES_DIRECTORY) return response.writeHead(404).end();
    if (mode === "down") return response.destroy();
    if (mode === "hang") return;
    if (mode === "redirect") return response.writeHead(302, { location: `${origin}/elsewhere` }).end();
    if (mode === "too-large") {
      response.writeHead(200, { "content-type": MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY });
      return response.end(JSON.stringify({ keys: keys.map((key) => key.publicJwk), padding: "x".repeat(70 * 1024) }));
    }
    const body = JSON.stringify({ keys: keys.map((key) => key.publicJwk) });
    const headers: Record<string, string> = { "content-type": MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY, "cache-control": cacheControl };
    if (mode === "unsigned") return response.writeHead(200, headers).end(body);
    const created = now();
    const url = `${origin}${HTTP_MESSAGE_SIGNATURES_DIRECTORY}`;
    void directoryResponseHeaders(
      { request: { method: "GET", url, headers: new Headers({ host: request.headers.host ?? "" }) }, response: { status: 200, headers: new Headers() } },
      keys.map((key) => key.signer),
      { created, expires: new Date(created.getTime() + 3_600_000) },
    ).then((signed) => response.writeHead(200, { ...headers, signature: signed.Signature, "signature-input": signed["Signature-Input"] }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits: () => hits,
    setMode: (next) => (mode = next),
    setCacheControl: (value) => (cacheControl = value),
    setKeys: (next) => (keys = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SignOptions {
  /** Signature-Agent's value; default the plain string form naming `agentOrigin`. */
  signatureAgent?: string;
  /** "dictionary": the WG draft's form, `sig1="<origin>"` covered with key="sig1" (signed with http-message-sig 0.3.0). */
  form?: "string" | "dictionary";
  created?: Date;
  expires?: Date;
  /** The nonce; default a fresh one. null: none (the draft allows it; web-bot-auth's signer always adds one, so such a
   * signature is made with http-message-sig 0.3.0, the RFC 9421 library, with web-bot-auth's other parameters). */
  nonce?: string | null;
}

/**
 * Signature, Signature-Input and Signature-Agent for a request to `url`, signed by web-bot-auth's own signer
 * (tag web-bot-auth, keyid = the key's JWK thumbprint, a fresh 64-byte nonce unless one is given).
 */
export async function signRequest(key: AgentKey, agentOrigin: string, method: string, url: string, options: SignOptions = {}): Promise<Record<string, string>> {
  const form = options.form ?? "string";
  const agentHeader = options.signatureAgent ?? (form === "dictionary" ? `sig1="${agentOrigin}"` : `"${agentOrigin}"`);
  const created = options.created ?? new Date();
  const expires = options.expires ?? new Date(created.getTime() + 300_000);
  if (form === "dictionary" || options.nonce === null) {
    // web-bot-auth 0.1.3's signer (on http-message-sig 0.2.0) ignores `;key=` and covers the whole field, so the
    // WG draft's form is signed with http-message-sig 0.3.0, the RFC 9421 library, with web-bot-auth's parameters.
    const nonce = options.nonce === null ? {} : { nonce: options.nonce ?? generateNonce() };
    const signed = await createSignature(
      { kind: "request", method, targetUri: url, fields: [{ name: "signature-agent", value: agentHeader }] },
      {
        label: "sig1",
        components: ["@authority", form === "dictionary" ? { name: "signature-agent", parameters: { key: "sig1" } } : "signature-agent"],
        parameters: {
          created: Math.floor(created.getTime() / 1000),
          expires: Math.floor(expires.getTime() / 1000),
          keyid: key.signer.keyid,
          ...nonce,
          tag: HTTP_MESSAGE_SIGNATURE_TAG,
        },
        signer: webcrypto.signer(key.privateKey),
      },
    );
    return { "signature-agent": agentHeader, signature: signed.signature, "signature-input": signed.signatureInput };
  }
  const headers = new Headers({ "signature-agent": agentHeader });
  const signed = await signatureHeaders({ method, url, headers }, key.signer, { created, expires, nonce: options.nonce });
  return { "signature-agent": agentHeader, signature: signed.Signature, "signature-input": signed["Signature-Input"] };
}
