// Web Bot Auth (STANDARDS.md §15; draft-ietf-webbotauth-httpsig-protocol): who signed a request. RFC 9421 itself
// (the signature base, Structured Fields, the component rules) is `http-message-sig`'s, never ours; this module
// picks the web-bot-auth signature, reads Signature-Agent in both forms in use, sets the policy (covered components,
// created/expires window, tag, keyid = JWK thumbprint, nonce never twice) and maps every failure to one reason.
// Everything here is pure but for the clock, the key directory and the nonce check (lib/shared-state's acceptOnce,
// fleet-wide), which the caller passes in.
import { verify as verifyEd25519, type KeyObject } from "node:crypto";
import { isSignatureError, SignatureErrorCode, verifySignature, type ComponentDescriptor, type SignatureParameters, type Verifier } from "http-message-sig";
import { HTTP_MESSAGE_SIGNATURE_TAG, SIGNATURE_AGENT_HEADER } from "web-bot-auth";
import type { Clock } from "@/lib/clock";
import type { HeaderReader } from "@/lib/http/api";
import { parseSignatureAgent, webBotAuthLabel } from "./headers";

/** Seconds a signature may live from `created` to `expires` (the draft: minutes). */
export const MAX_SIGNATURE_LIFETIME_SECONDS = 600;
/** The detail of a replayed_signature refusal. */
export const REPLAYED_DETAIL = "this nonce was already used";

/** Seconds of disagreement between the agent's clock and ours that are forgiven at either end of the window. */
export const CLOCK_SKEW_SECONDS = 30;

/** Why a present signature was not accepted; each is one error code (lib/http/errors.ts). */
export type SignatureFailure =
  /** Malformed headers, wrong covered components, a bad signature or a signature over another authority. */
  | "invalid_signature"
  /** Outside its created/expires window, or a window longer than MAX_SIGNATURE_LIFETIME_SECONDS. */
  | "expired_signature"
  /** A nonce already accepted within its window. */
  | "replayed_signature"
  /** The keyid is not a key of the agent's directory. */
  | "unknown_key"
  /** The agent's key directory could not be fetched or verified. */
  | "directory_unavailable";

/** A verified signature's nonce that the caller still has to accept once (VerificationDeps without acceptNonce). */
export interface UnacceptedNonce {
  key: string;
  /** Epoch seconds: the signature's window end plus the forgiven skew. */
  until: number;
}

export type AgentIdentity =
  | { kind: "unsigned" }
  | { kind: "verified"; origin: string; thumbprint: string; unacceptedNonce?: UnacceptedNonce }
  | { kind: "invalid"; reason: SignatureFailure; detail: string };

/** A directory's Ed25519 keys (as verifiers, made once per key: ed25519Verifier) by thumbprint, or why it has none to give. */
export type DirectoryLookup = { ok: true; keys: ReadonlyMap<string, Verifier> } | { ok: false; detail: string };

/**
 * An Ed25519 verifier for http-message-sig (its own extension point) on node:crypto's synchronous one-shot verify:
 * WebCrypto's async verify cost several times as much per request (bench/README.md, "signed MCP lookup_member").
 */
export function ed25519Verifier(key: KeyObject): Verifier {
  return { algorithm: "ed25519", verify: (data, signature) => verifyEd25519(null, data, key, signature) };
}

export interface VerificationDeps {
  clock: Clock;
  /** The verified keys of an origin's directory (./directory.ts; cached there: then answered without a promise). */
  directory(origin: string): DirectoryLookup | Promise<DirectoryLookup>;
  /**
   * The directory fetched again because it lacks `keyid` (a rotated key), at most once per DIRECTORY_REFETCH_SECONDS
   * per origin (./directory.ts); undefined: not again yet (the key stays unknown).
   */
  refetchDirectory?(origin: string): Promise<DirectoryLookup> | undefined;
  /**
   * True the first time a nonce is seen before `until` (epoch seconds), false after (lib/shared-state acceptOnce).
   * Absent: the nonce is not accepted here but handed back with the identity (`unacceptedNonce`), for the caller to
   * accept in the same round trip as its budget charge.
   */
  acceptNonce?(key: string, until: number): boolean | Promise<boolean>;
  /** http:// origins too (AGENT_DIRECTORY_ALLOW_PRIVATE=1). */
  allowHttp: boolean;
}

export interface SignedRequest {
  method: string;
  /** The absolute URL as the agent addressed us: our public origin and the path (so @authority is ours). */
  url: string;
  headers: HeaderReader;
}

class Refusal extends Error {
  constructor(
    readonly reason: SignatureFailure,
    detail: string,
  ) {
    super(detail);
  }
}

const HEADER_NAMES = ["signature", "signature-input", SIGNATURE_AGENT_HEADER, "host"] as const;

/** The headers the signature may cover, as http-message-sig's descriptor takes them; only those it needs. */
function fieldsOf(headers: HeaderReader): { name: string; value: string }[] {
  const fields: { name: string; value: string }[] = [];
  for (const name of HEADER_NAMES) {
    const value = headers.get(name);
    if (value !== null) fields.push({ name, value });
  }
  return fields;
}

/** True when the request carries a signature at all (either of the two RFC 9421 fields). */
export function isSigned(headers: HeaderReader): boolean {
  return headers.get("signature") !== null || headers.get("signature-input") !== null;
}

/** The web-bot-auth signature of a request and the agent origin it names, read before any key is looked up. */
export interface SignatureClaim {
  label: string;
  origin: string;
  /** The Signature-Agent component the signature must cover (its form decides it: ./headers.ts). */
  component: string | ComponentDescriptor;
}

/**
 * Which signature to verify and which origin's directory holds its key (no key needed yet: server.ts's listener uses
 * the origin to see whether that directory is cached); or why the request's signature is not accepted. The request
 * must be signed (isSigned).
 */
export function readSignatureClaim(headers: HeaderReader, allowHttp: boolean): { ok: true; claim: SignatureClaim } | { ok: false; identity: AgentIdentity } {
  const signatureInput = headers.get("signature-input");
  if (signatureInput === null || headers.get("signature") === null) return refused("invalid_signature", "Signature and Signature-Input must be sent together");
  const label = webBotAuthLabel(signatureInput);
  if (label === null) return refused("invalid_signature", `no signature with tag="${HTTP_MESSAGE_SIGNATURE_TAG}" in Signature-Input`);
  const agent = parseSignatureAgent(headers.get(SIGNATURE_AGENT_HEADER), label, allowHttp);
  if (!agent.ok) return refused("invalid_signature", agent.detail);
  return { ok: true, claim: { label, origin: agent.origin, component: agent.component } };
}

function refused(reason: SignatureFailure, detail: string): { ok: false; identity: AgentIdentity } {
  return { ok: false, identity: { kind: "invalid", reason, detail } };
}

/** Verifies the request's Web Bot Auth signature; never throws. */
export async function verifyAgentRequest(request: SignedRequest, deps: VerificationDeps): Promise<AgentIdentity> {
  if (!isSigned(request.headers)) return { kind: "unsigned" };
  const read = readSignatureClaim(request.headers, deps.allowHttp);
  return read.ok ? verifySignatureClaim(request, read.claim, deps) : read.identity;
}

/** Verifies the signature `claim` names (readSignatureClaim); never throws. */
export async function verifySignatureClaim(request: SignedRequest, claim: SignatureClaim, deps: VerificationDeps): Promise<AgentIdentity> {
  try {
    return await verifyOrThrow(request, claim, deps);
  } catch (error) {
    if (error instanceof Refusal) return { kind: "invalid", reason: error.reason, detail: error.message };
    // The library's own refusals, and anything a hostile header makes it throw, are a bad signature: never a 500.
    return { kind: "invalid", reason: "invalid_signature", detail: describeLibraryError(error) };
  }
}

function describeLibraryError(error: unknown): string {
  if (isSignatureError(error)) {
    if (error.code === SignatureErrorCode.VerificationFailed) return "the signature does not match the request (check @authority: it must be this service's host)";
    if (error.code === SignatureErrorCode.MissingField) return "a covered field or the Signature/Signature-Input pair is missing";
    return "the Signature or Signature-Input header is malformed or not allowed";
  }
  return "the Signature or Signature-Input header is malformed";
}

async function verifyOrThrow(request: SignedRequest, agent: SignatureClaim, deps: VerificationDeps): Promise<AgentIdentity> {
  const { label } = agent;
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  let matchedKey: string | null = null;
  const verified = await verifySignature(
    { kind: "request", method: request.method, targetUri: request.url, fields: fieldsOf(request.headers) },
    {
      label,
      policy: {
        algorithms: ["ed25519"],
        requiredComponents: ["@authority", agent.component],
        requiredParameters: ["created", "expires", "keyid", "tag"],
        maxAge: MAX_SIGNATURE_LIFETIME_SECONDS,
        clockSkew: CLOCK_SKEW_SECONDS,
        now,
      },
      // Runs after the library has checked coverage and the window, before the one Ed25519 verification.
      resolveVerifier: async (candidate): Promise<Verifier> => {
        checkWindow(candidate.parameters, now);
        const keyid = candidate.parameters.keyid;
        if (typeof keyid !== "string") throw new Refusal("invalid_signature", "keyid must be a string");
        let directory = await deps.directory(agent.origin);
        if (!directory.ok) throw new Refusal("directory_unavailable", `the key directory of ${agent.origin} is unavailable: ${directory.detail}`);
        // A keyid the cached directory lacks may be a key the agent has just rotated in: fetch it again (rate-limited).
        const refetched = directory.keys.has(keyid) ? undefined : deps.refetchDirectory?.(agent.origin);
        if (refetched !== undefined) {
          directory = await refetched;
          if (!directory.ok) throw new Refusal("directory_unavailable", `the key directory of ${agent.origin} is unavailable: ${directory.detail}`);
        }
        const key = directory.keys.get(keyid);
        if (key === undefined) throw new Refusal("unknown_key", `keyid is not the JWK thumbprint of a key in the directory of ${agent.origin}`);
        matchedKey = keyid;
        return key;
      },
    },
  ).catch((error: unknown) => {
    // The resolver's refusal comes back wrapped as ResolverFailed; the library's window checks as PolicyViolation.
    if (isSignatureError(error) && error.cause instanceof Refusal) throw error.cause;
    if (isSignatureError(error) && error.code === SignatureErrorCode.PolicyViolation && /expired|future|too old/i.test(error.message))
      throw new Refusal("expired_signature", `the signature is outside its created/expires window (${error.message.toLowerCase()})`);
    throw error;
  });
  if (matchedKey === null) throw new Refusal("invalid_signature", "the signature was not checked against a directory key");
  // The nonce is accepted only once the signature is good: a forger cannot burn an agent's nonces.
  const nonce = verified.parameters.nonce;
  if (nonce === undefined) return { kind: "verified", origin: agent.origin, thumbprint: matchedKey };
  if (typeof nonce !== "string") throw new Refusal("invalid_signature", "nonce must be a string");
  const unaccepted: UnacceptedNonce = { key: `${agent.origin} ${matchedKey} ${nonce}`, until: (verified.parameters.expires as number) + CLOCK_SKEW_SECONDS };
  if (deps.acceptNonce === undefined) return { kind: "verified", origin: agent.origin, thumbprint: matchedKey, unacceptedNonce: unaccepted };
  if (!(await deps.acceptNonce(unaccepted.key, unaccepted.until))) throw new Refusal("replayed_signature", REPLAYED_DETAIL);
  return { kind: "verified", origin: agent.origin, thumbprint: matchedKey };
}

/** created and expires are integers, in order, and no further apart than the short window allows. */
function checkWindow(parameters: SignatureParameters, now: number): void {
  const { created, expires, tag } = parameters;
  if (tag !== HTTP_MESSAGE_SIGNATURE_TAG) throw new Refusal("invalid_signature", `tag must be "${HTTP_MESSAGE_SIGNATURE_TAG}"`);
  if (typeof created !== "number" || typeof expires !== "number" || !Number.isInteger(created) || !Number.isInteger(expires))
    throw new Refusal("invalid_signature", "created and expires must be integers");
  if (expires <= created) throw new Refusal("expired_signature", "expires must be after created");
  if (expires - created > MAX_SIGNATURE_LIFETIME_SECONDS) throw new Refusal("expired_signature", `expires may be at most ${MAX_SIGNATURE_LIFETIME_SECONDS} seconds after created`);
  // The library checked these with the same skew; kept here too so the window is this module's rule, whole.
  if (created > now + CLOCK_SKEW_SECONDS || expires < now - CLOCK_SKEW_SECONDS) throw new Refusal("expired_signature", "the signature is outside its created/expires window");
}
