// Helpers for HTTP tests of the service_auth flow. The human's browser decision is made by calling
// decideAttempt (the same lib function /agent/authorize calls) against the server's own database:
// call useServerDatabase(server.databaseUrl) in beforeAll, before any lib function runs.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { configureFile } from "./config";
import { startServer, type TestServer } from "./server";

/**
 * A server of our own: TRUSTED_PROXY=1 lets each test choose its client IP, so rate limits never leak between tests.
 * `testFlags`: the tests' own options (./server.ts StartOptions).
 */
export function startAuthServer(env: Record<string, string> = {}, testFlags: string[] = []): Promise<TestServer> {
  return startServer({ label: "auth", env: { TRUSTED_PROXY: "1", ...env }, testFlags });
}

/** This process's lib functions use the server's database from now on (this file's configuration). */
export function useServerDatabase(databaseUrl: string): void {
  configureFile({ DATABASE_URL: databaseUrl });
}

/**
 * One auth server for the calling test file: started before its tests (this process's lib functions then
 * use the server's database), `ready` gets its base URL, and it is stopped after them.
 */
export function useAuthServer(ready: (base: string) => void | Promise<void>): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startAuthServer();
    useServerDatabase(server.databaseUrl);
    await ready(server.baseUrl);
  });
  afterAll(async () => {
    await server?.stop();
  });
}

/** A fresh client IP (documentation range 198.18.0.0/15) for X-Forwarded-For. */
export function freshIp(): string {
  const b = randomBytes(2);
  return `198.18.${b[0]}.${b[1]}`;
}

export function uniqueEmail(): string {
  return `agent-test-${randomBytes(6).toString("hex")}@example.com`;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** node:http request: lets a test send what fetch refuses (a GET with a body, a spoofed Host). */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export interface RegistrationJson {
  registration_id: string;
  registration_type: string;
  claim_url: string;
  claim_token: string;
  claim_token_expires: string;
  post_claim_scopes: string[];
  claim: { user_code: string; expires_in: number; verification_uri: string; interval: number };
}

export function postJson(base: string, path: string, body: unknown, ip = freshIp()): Promise<Response> {
  return fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/json", "X-Forwarded-For": ip }, body: JSON.stringify(body) });
}

export function postForm(base: string, path: string, fields: Record<string, string> | string, ip = freshIp()): Promise<Response> {
  const body = typeof fields === "string" ? fields : new URLSearchParams(fields).toString();
  return fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": ip }, body });
}

export async function register(base: string, loginHint: string, extra: Record<string, unknown> = {}): Promise<RegistrationJson> {
  const res = await postJson(base, "/agent/identity", { type: "service_auth", login_hint: loginHint, client_name: "HTTP Test Agent", ...extra });
  if (res.status !== 200) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as RegistrationJson;
}

export const attemptTokenOf = (reg: { claim: { verification_uri: string } }): string => new URL(reg.claim.verification_uri).searchParams.get("claim_attempt_token") ?? "";

export const CLAIM_GRANT = "urn:vendor:agent-auth:grant-type:claim";
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export const poll = (base: string, claimToken: string): Promise<Response> => postForm(base, "/oauth2/token", { grant_type: CLAIM_GRANT, claim_token: claimToken });

/** Approves as the member with this e-mail, through lib/service-auth/lifecycle.ts on the server's database. */
export async function approveAs(reg: RegistrationJson, email: string, decision: "approve" | "deny" = "approve"): Promise<string> {
  const { getDb } = await import("@/lib/db/prisma");
  const { decideAttempt } = await import("@/lib/service-auth/lifecycle");
  const member = await getDb().member.findUniqueOrThrow({ where: { email } });
  const outcome = await decideAttempt({ attemptToken: attemptTokenOf(reg), member: { id: member.id, email: member.email }, userCode: reg.claim.user_code, decision });
  return outcome.outcome;
}

/** A fresh member (so per-login-hint limits never collide between tests). */
export async function newMember(): Promise<string> {
  const { createMember } = await import("@/lib/members");
  const email = uniqueEmail();
  await createMember({ email, password: "demo-password", displayName: `Agent Test ${email.slice(11, 23)}`, publicProfile: false });
  return email;
}

export interface TokenJson {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  identity_assertion: string;
  assertion_expires: string;
}

/** Register, approve and poll once: an access token and an assertion. */
export async function approvedTokens(base: string, extra: Record<string, unknown> = {}): Promise<{ reg: RegistrationJson; tokens: TokenJson; email: string }> {
  const email = await newMember();
  const reg = await register(base, email, extra);
  const outcome = await approveAs(reg, email);
  if (outcome !== "approved") throw new Error(`approval: ${outcome}`);
  const res = await poll(base, reg.claim_token);
  if (res.status !== 200) throw new Error(`poll failed: ${res.status} ${await res.text()}`);
  return { reg, tokens: (await res.json()) as TokenJson, email };
}
