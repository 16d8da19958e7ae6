// The agent's side of the service_auth flow, spoken over plain HTTP from Playwright specs.
import { expect, type APIRequestContext } from "@playwright/test";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { baseUrl } from "./fixtures";

export interface Registration {
  registration_id: string;
  claim_token: string;
  claim: { user_code: string; verification_uri: string; interval: number; expires_in: number };
}

export async function registerAgent(request: APIRequestContext, loginHint: string, clientName?: string): Promise<Registration> {
  const res = await request.post(`${baseUrl()}/agent/identity`, {
    data: { type: "service_auth", login_hint: loginHint, ...(clientName ? { client_name: clientName } : {}), scopes: ["agent.account.read", "agent.registrations.read"] },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as Registration;
}

export async function pollToken(request: APIRequestContext, claimToken: string) {
  const res = await request.post(`${baseUrl()}/oauth2/token`, {
    form: { grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: claimToken },
  });
  return { status: res.status(), body: (await res.json()) as Record<string, unknown> };
}

export async function exchangeAssertion(request: APIRequestContext, assertion: string) {
  const res = await request.post(`${baseUrl()}/oauth2/token`, {
    form: { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion, resource: `${baseUrl()}/api` },
  });
  return { status: res.status(), body: (await res.json()) as Record<string, unknown> };
}

export async function readOwn(request: APIRequestContext, route: "account" | "registrations", accessToken: string) {
  const res = await request.get(`${baseUrl()}/api/v1/agent/${route}`, { headers: { Authorization: `Bearer ${accessToken}` } });
  const text = await res.text();
  return { status: res.status(), challenge: res.headers()["www-authenticate"], body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** The attempt token inside a verification_uri. */
export function attemptTokenOf(registration: Registration): string {
  return new URL(registration.claim.verification_uri).searchParams.get("claim_attempt_token")!;
}

/** Moves an attempt past its expiry in the e2e server's database (that server's clock cannot be moved). */
export function expireAttempt(attemptToken: string): void {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is set by tests/e2e/global-setup.ts");
  const root = path.resolve(__dirname, "../..");
  execFileSync(path.join(root, "node_modules/.bin/tsx"), ["tests/e2e/support/expire-attempt.ts", attemptToken], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: "pipe",
  });
}

/** A path relative to the service (verification_uri is absolute on BASE_URL). */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}
