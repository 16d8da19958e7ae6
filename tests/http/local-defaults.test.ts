// Issue 42 item 5: a default install's start and keys. `npm start` without BASE_URL advertises this machine at its
// PORT (not always :3000), and `npm run -s keys:export` prints the key it generated into its database as a value
// SIGNING_KEYS takes, the key its JWKS publishes.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkConfig } from "@/lib/config/schema";
import { childEnv, ROOT } from "../support/databases";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  // An empty BASE_URL is unset (lib/config): the start derives it.
  server = await startServer({ label: "local-defaults", env: { BASE_URL: "" } });
});
afterAll(async () => {
  await server?.stop();
});

describe("npm start without BASE_URL", () => {
  it("advertises http://localhost:<PORT> as its issuer and in its endpoints", async () => {
    expect(server.port).not.toBe(3000);
    const expected = `http://localhost:${server.port}`;
    const metadata = (await (await fetch(`http://127.0.0.1:${server.port}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(expected);
    expect(metadata.token_endpoint).toBe(`${expected}/oauth2/token`);
    expect(metadata.jwks_uri).toBe(`${expected}/.well-known/jwks.json`);
  });
});

describe("npm run -s keys:export", () => {
  function keysExport(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
    const childEnvironment = childEnv({ ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}` });
    delete childEnvironment.SIGNING_KEYS;
    const run = spawnSync("npm", ["run", "-s", "keys:export"], { cwd: ROOT, env: childEnvironment, encoding: "utf8", timeout: 60_000 });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  it("prints the generated key as SIGNING_KEYS takes it: the key the JWKS publishes", async () => {
    const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string; x: string }> };
    expect(jwks.keys).toHaveLength(1);
    const run = keysExport({ DATABASE_URL: server.databaseUrl });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const checked = checkConfig({ SIGNING_KEYS: lines[0] });
    if (!checked.ok) throw new Error(`not a SIGNING_KEYS value: ${JSON.stringify(checked.problems)}`);
    expect(checked.config.signingKeys).toHaveLength(1);
    expect(checked.config.signingKeys?.[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", x: jwks.keys[0]!.x, kid: jwks.keys[0]!.kid });
    expect(run.stderr).toMatch(/Rotating signing keys/);
  });

  it("refuses, with one line, when SIGNING_KEYS is set", () => {
    const key = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
    const childEnvironment = childEnv({
      DATABASE_URL: server.databaseUrl,
      SIGNING_KEYS: JSON.stringify([key]),
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
    });
    const run = spawnSync("npm", ["run", "-s", "keys:export"], { cwd: ROOT, env: childEnvironment, encoding: "utf8", timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^keys:export: SIGNING_KEYS is set/);
  });
});
