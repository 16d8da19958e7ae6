// Verified agents (issue 44) against the production server: registrations signed with Cloudflare's reference
// signer (web-bot-auth) and a local key directory signed as the draft requires. A valid signature stores the
// verified origin and key thumbprint; a signature that is present but not accepted is a 401 with a Signature
// challenge and its own code, and nothing is written; an unsigned registration answers as before.
import fc from "fast-check";
import { calculateJwkThumbprint } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/prisma";
import {
  approveAs,
  CLAIM_GRANT,
  freshIp,
  JWT_BEARER_GRANT,
  newMember,
  startAuthServer,
  uniqueEmail,
  useServerDatabase,
  type RegistrationJson,
  type TokenJson,
} from "../support/agent-auth";
import type { TestServer } from "../support/server";
import { newAgentKey, signRequest, startDirectory, type AgentKey, type DirectoryMode, type DirectoryServer, type SignOptions } from "../support/web-bot-agent";

let server: TestServer;
let key: AgentKey;
let directory: DirectoryServer;
const directories: DirectoryServer[] = [];

beforeAll(async () => {
  server = await startAuthServer({ AGENT_DIRECTORY_ALLOW_PRIVATE: "1" });
  useServerDatabase(server.databaseUrl);
  key = await newAgentKey();
  directory = await startDirectory([key]);
});
afterAll(async () => {
  await server?.stop();
  await directory?.close();
  await Promise.all(directories.map((d) => d.close()));
});

async function directoryIn(mode: DirectoryMode, keys: AgentKey[] = [key]): Promise<DirectoryServer> {
  const made = await startDirectory(keys);
  made.setMode(mode);
  directories.push(made);
  return made;
}

function registrationBody(email: string): string {
  return JSON.stringify({ type: "service_auth", login_hint: email, client_name: "Signed Test Agent" });
}

async function registerSigned(email: string, signature: Record<string, string>): Promise<Response> {
  return fetch(`${server.baseUrl}/agent/identity`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...signature },
    body: registrationBody(email),
  });
}

const sign = (signer: AgentKey, origin: string, options: SignOptions = {}, url = `${server.baseUrl}/agent/identity`) => signRequest(signer, origin, "POST", url, options);

async function rowsFor(email: string) {
  return getDb().registration.findMany({ where: { loginHint: email }, select: { agentOrigin: true, agentKeyThumbprint: true } });
}

async function expectRefusal(response: Response, code: string, email: string): Promise<void> {
  const body = (await response.json()) as { error: string; error_description: string };
  expect(response.status, JSON.stringify(body)).toBe(401);
  expect(body.error).toBe(code);
  expect(body.error_description).toMatch(/^The request's Web Bot Auth signature was not accepted: /);
  expect(response.headers.get("www-authenticate")).toBe(`Signature realm="${new URL(server.baseUrl).hostname}", tag="web-bot-auth", error="${code}"`);
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(await rowsFor(email)).toEqual([]);
}

describe("POST /agent/identity with a Web Bot Auth signature", () => {
  it("stores the verified origin and key thumbprint of a registration signed by web-bot-auth (plain string Signature-Agent)", async () => {
    const email = uniqueEmail();
    const response = await registerSigned(email, await sign(key, directory.origin));
    expect(response.status).toBe(200);
    expect(await rowsFor(email)).toEqual([{ agentOrigin: directory.origin, agentKeyThumbprint: await calculateJwkThumbprint(key.publicJwk as never, "sha256") }]);
  });

  it("reads the WG draft's dictionary form of Signature-Agent", async () => {
    const email = uniqueEmail();
    const response = await registerSigned(email, await sign(key, directory.origin, { form: "dictionary" }));
    expect(response.status).toBe(200);
    expect(await rowsFor(email)).toEqual([{ agentOrigin: directory.origin, agentKeyThumbprint: expect.any(String) }]);
  });

  it("keeps an unsigned registration exactly as before: 200, no origin stored", async () => {
    const email = uniqueEmail();
    const response = await registerSigned(email, {});
    expect(response.status).toBe(200);
    expect(Object.keys((await response.json()) as object).sort()).toEqual([
      "claim",
      "claim_token",
      "claim_token_expires",
      "claim_url",
      "post_claim_scopes",
      "registration_id",
      "registration_type",
    ]);
    expect(await rowsFor(email)).toEqual([{ agentOrigin: null, agentKeyThumbprint: null }]);
  });

  it("refuses a bad signature: 401 invalid_signature", async () => {
    const email = uniqueEmail();
    const signed = await sign(key, directory.origin);
    await expectRefusal(await registerSigned(email, { ...signed, signature: signed.signature.replace(/:[A-Za-z0-9+/]{8}/, ":AAAAAAAA") }), "invalid_signature", email);
  });

  it("refuses a signature over another @authority: 401 invalid_signature", async () => {
    const email = uniqueEmail();
    await expectRefusal(await registerSigned(email, await sign(key, directory.origin, {}, "https://other.example/agent/identity")), "invalid_signature", email);
  });

  it("refuses an expired signature: 401 expired_signature", async () => {
    const email = uniqueEmail();
    const created = new Date(Date.now() - 20 * 60_000);
    await expectRefusal(await registerSigned(email, await sign(key, directory.origin, { created, expires: new Date(created.getTime() + 5 * 60_000) })), "expired_signature", email);
  });

  it("refuses a replayed nonce: the first is registered, the second 401 replayed_signature", async () => {
    const email = uniqueEmail();
    const signed = await sign(key, directory.origin);
    expect((await registerSigned(email, signed)).status).toBe(200);
    const response = await registerSigned(email, signed);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("replayed_signature");
    expect(await rowsFor(email)).toHaveLength(1);
  });

  it("refuses a key that is not in the agent's directory: 401 unknown_key", async () => {
    const email = uniqueEmail();
    await expectRefusal(await registerSigned(email, await sign(await newAgentKey(), directory.origin)), "unknown_key", email);
  });

  it.each([["down"], ["too-large"], ["redirect"], ["unsigned"]] as const)("refuses when the directory is %s: 401 directory_unavailable", async (mode) => {
    const email = uniqueEmail();
    const broken = await directoryIn(mode);
    await expectRefusal(await registerSigned(email, await sign(key, broken.origin)), "directory_unavailable", email);
  });

  it("does not fetch a cached directory again", async () => {
    const own = await directoryIn("ok");
    expect((await registerSigned(uniqueEmail(), await sign(key, own.origin))).status).toBe(200);
    const hits = own.hits();
    expect((await registerSigned(uniqueEmail(), await sign(key, own.origin))).status).toBe(200);
    expect(own.hits()).toBe(hits);
  });
});

describe("a signed registration binds its claim polls and exchanges to its agent's keys", () => {
  async function token(fields: Record<string, string>, signature: Record<string, string> = {}): Promise<Response> {
    return fetch(`${server.baseUrl}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp(), ...signature },
      body: new URLSearchParams(fields).toString(),
    });
  }
  const signToken = (signer: AgentKey, origin: string) => signRequest(signer, origin, "POST", `${server.baseUrl}/oauth2/token`);

  async function expectBindingRefusal(response: Response): Promise<void> {
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_grant");
    expect(body.error_description).toContain("must be signed by a key of the same agent origin");
  }

  it("a key of the same origin (another key of its directory) passes; an unsigned request or another origin's key gets invalid_grant", async () => {
    const rotated = await newAgentKey();
    const agentDirectory = await directoryIn("ok", [key, rotated]);
    const stranger = await newAgentKey();
    const strangerDirectory = await directoryIn("ok", [stranger]);
    const email = await newMember();
    const registered = await registerSigned(email, await sign(key, agentDirectory.origin));
    expect(registered.status).toBe(200);
    const reg = (await registered.json()) as RegistrationJson;
    expect(await approveAs(reg, email)).toBe("approved");
    // The webhooks' payloads carry the verified origin (validated against the published schema in webhooks.test.ts).
    const events = await getDb().webhookEvent.findMany({ where: { payload: { contains: reg.registration_id } } });
    expect(events.map((event) => (JSON.parse(event.payload) as { type: string }).type).sort()).toEqual(["delegation.approved", "delegation.requested"]);
    for (const event of events) expect((JSON.parse(event.payload) as { data: { agent_origin?: string } }).data.agent_origin).toBe(agentDirectory.origin);
    const accessTokens = () => getDb().accessToken.count({ where: { registrationId: reg.registration_id } });

    const claim = { grant_type: CLAIM_GRANT, claim_token: reg.claim_token };
    await expectBindingRefusal(await token(claim));
    await expectBindingRefusal(await token(claim, await signToken(stranger, strangerDirectory.origin)));
    expect(await accessTokens()).toBe(0);
    const polled = await token(claim, await signToken(rotated, agentDirectory.origin));
    expect(polled.status).toBe(200);
    const issued = (await polled.json()) as TokenJson;
    expect(await accessTokens()).toBe(1);

    const exchange = { grant_type: JWT_BEARER_GRANT, assertion: issued.identity_assertion, resource: `${server.baseUrl}/api` };
    await expectBindingRefusal(await token(exchange));
    await expectBindingRefusal(await token(exchange, await signToken(stranger, strangerDirectory.origin)));
    expect(await accessTokens()).toBe(1);
    const exchanged = await token(exchange, await signToken(key, agentDirectory.origin));
    expect(exchanged.status).toBe(200);
    expect(await accessTokens()).toBe(2);
  });
});

describe("hostile signature headers on registration and on a public read", () => {
  it("random Signature-Input, Signature and Signature-Agent never yield a 500: a registration is 200 or 401, /ask is 200", async () => {
    // Header values as fetch can send them (ByteString), that is Latin-1 text but CR, LF and NUL, trimmed by HTTP.
    const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x20 : c)), maxLength: 200 });
    const input = fc.oneof(
      headerText,
      fc.constantFrom(
        'sig1=("@authority" "signature-agent");created=1;expires=2;keyid="k";tag="web-bot-auth"',
        'sig1=();tag="web-bot-auth"',
        "sig1=1",
        'a=("@authority");tag="web-bot-auth", a=()',
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        input,
        fc.option(headerText, { nil: undefined }),
        fc.option(fc.oneof(headerText, fc.constant(`"${directory.origin}"`)), { nil: undefined }),
        async (signatureInput, signature, agent) => {
          const headers: Record<string, string> = { "signature-input": signatureInput };
          if (signature !== undefined) headers.signature = signature;
          if (agent !== undefined) headers["signature-agent"] = agent;
          const email = uniqueEmail();
          const registration = await registerSigned(email, headers);
          await registration.text();
          expect([200, 401]).toContain(registration.status);
          if (registration.status === 401) expect(await rowsFor(email)).toEqual([]);
          const read = await fetch(`${server.baseUrl}/ask?query=token%20polling`, { headers: { "x-forwarded-for": freshIp(), ...headers } });
          await read.text();
          expect(read.status).toBe(200);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("without AGENT_DIRECTORY_ALLOW_PRIVATE", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startAuthServer();
  });
  afterAll(() => strict?.stop());

  it("refuses an http:// agent origin (401 invalid_signature) and a directory at a private address (401 directory_unavailable), never fetching it", async () => {
    const hits = directory.hits();
    const post = async (signature: Record<string, string>) =>
      fetch(`${strict.baseUrl}/agent/identity`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": freshIp(), ...signature },
        body: registrationBody(uniqueEmail()),
      });
    const plain = await post(await signRequest(key, directory.origin, "POST", `${strict.baseUrl}/agent/identity`));
    expect(plain.status).toBe(401);
    expect(((await plain.json()) as { error: string }).error).toBe("invalid_signature");
    const privateOrigin = directory.origin.replace("http:", "https:");
    const tls = await post(await signRequest(key, privateOrigin, "POST", `${strict.baseUrl}/agent/identity`));
    expect(tls.status).toBe(401);
    const body = (await tls.json()) as { error: string; error_description: string };
    expect(body.error).toBe("directory_unavailable");
    expect(body.error_description).toContain("private or reserved");
    expect(directory.hits()).toBe(hits);
  });
});
