// Helpers of the consent-phishing specs (issue 53): a fresh member of the e2e server (settings changed in a spec must
// not reach the demo members other specs use), and a registration sent from another loopback address, so the
// approval page sees a different network.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import type { Page } from "@playwright/test";
import { signRequest, type AgentKey } from "../../support/web-bot-agent";
import type { Registration } from "../agent";
import { baseUrl } from "../fixtures";

const ROOT = path.resolve(__dirname, "../../..");

/** Adds a member with `npm run member:add`'s script against the e2e server's database; its e-mail. */
export function addMember(label: string): string {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is set by tests/e2e/global-setup.ts");
  const email = `${label}-${randomBytes(4).toString("hex")}@example.com`;
  execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["scripts/member-add.ts", "--email", email, "--password", "demo-password", "--name", `E2E ${label}`, "--private"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    stdio: "pipe",
  });
  return email;
}

const registrationBody = (loginHint: string, clientName: string) => JSON.stringify({ type: "service_auth", login_hint: loginHint, client_name: clientName });

/** A registration sent by the browser itself (its connection, so its network). */
export async function registerFromBrowser(page: Page, loginHint: string, clientName: string): Promise<Registration> {
  return page.evaluate(
    async (body) => {
      const response = await fetch("/agent/identity", { method: "POST", headers: { "content-type": "application/json" }, body });
      return (await response.json()) as Registration;
    },
    registrationBody(loginHint, clientName),
  );
}

/** A registration signed with Cloudflare's web-bot-auth signer for `origin` (a verified agent). */
export async function registerSigned(key: AgentKey, origin: string, loginHint: string, clientName: string): Promise<Registration> {
  const url = `${baseUrl()}/agent/identity`;
  const headers = { "content-type": "application/json", ...(await signRequest(key, origin, "POST", url)) };
  return (await (await fetch(url, { method: "POST", headers, body: registrationBody(loginHint, clientName) })).json()) as Registration;
}

/** A registration sent from 127.0.0.2, another address of this host: "a different network" to the browser. */
export function registerFromOtherAddress(loginHint: string, clientName: string): Promise<Registration> {
  const target = new URL(`${baseUrl()}/agent/identity`);
  const body = registrationBody(loginHint, clientName);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port: target.port,
        path: target.pathname,
        method: "POST",
        localAddress: "127.0.0.2",
        agent: false,
        headers: { "content-type": "application/json", host: target.host },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => (response.statusCode === 200 ? resolve(JSON.parse(text) as Registration) : reject(new Error(`registration: ${response.statusCode} ${text}`))));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** Ticks (or unticks) the two boxes on /account and saves, as a member does. */
export async function chooseSettings(page: Page, settings: { verifiedOnly: boolean; confirm: boolean }): Promise<void> {
  await page.goto(`${baseUrl()}/account`);
  await page.getByLabel("Only verified agents may ask for access").setChecked(settings.verifiedOnly);
  await page.getByLabel("Ask unverified agents to confirm a code").setChecked(settings.confirm);
  await page.getByRole("button", { name: "Save settings" }).click();
  await page.waitForURL(/\/account\?settings=saved/);
}
