// POST /api/v1/sandbox/simulate (CONTRACT.md §9): production schemas, fixed values, same bytes, no database.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { batchResponseSchema, SIMULATOR_SCENARIOS } from "@/lib/schemas/public-read";
import { claimGrantTokenResponseSchema, errorBodySchema, registrationResponseSchema } from "@/lib/schemas/service-auth";
import { SIMULATED_BATCH_ITEMS } from "@/lib/sandbox/simulate";
import { approveAs, freshIp, newMember, poll, register, useAuthServer } from "../support/agent-auth";
import { startServer, type TestServer } from "../support/server";

const base = inject("baseUrl");

const simulate = (url: string, body: unknown, headers: Record<string, string> = { "Content-Type": "application/json" }) =>
  fetch(`${url}/api/v1/sandbox/simulate`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });

const EXPECTED = {
  agent_auth_challenge: { models: { method: "POST", path: "/agent/identity", status: 200 }, schema: registrationResponseSchema },
  agent_auth_pending: { models: { method: "POST", path: "/oauth2/token", status: 400 }, schema: errorBodySchema },
  agent_auth_success: { models: { method: "POST", path: "/oauth2/token", status: 200 }, schema: claimGrantTokenResponseSchema },
  batch_mixed_result: { models: { method: "POST", path: "/api/v1/batch", status: 200 }, schema: batchResponseSchema },
} as const;

describe("simulator scenarios", () => {
  for (const scenario of SIMULATOR_SCENARIOS) {
    it(`${scenario}: 200, the production schema, the same bytes every time`, async () => {
      const first = await simulate(base, { scenario });
      expect(first.status).toBe(200);
      expect(first.headers.get("content-type")).toBe("application/json");
      const text = await first.text();
      expect(await (await simulate(base, { scenario })).text()).toBe(text);
      const body = JSON.parse(text) as { scenario: string; models: unknown; response: unknown };
      expect(Object.keys(body)).toEqual(["scenario", "models", "response"]);
      expect(body.scenario).toBe(scenario);
      expect(body.models).toEqual(EXPECTED[scenario].models);
      EXPECTED[scenario].schema.parse(body.response);
    });
  }

  it("synthetic values use the base URL and the documented constants", async () => {
    const challenge = (await (await simulate(base, { scenario: "agent_auth_challenge" })).json()) as { response: Record<string, unknown> & { claim: Record<string, unknown> } };
    expect(challenge.response.claim_url).toBe(`${base}/agent/identity/claim`);
    expect(String(challenge.response.claim.verification_uri).startsWith(`${base}/agent/authorize?claim_attempt_token=cat_`)).toBe(true);
    expect(challenge.response.claim).toMatchObject({ expires_in: 600, interval: 5 });
    const pending = (await (await simulate(base, { scenario: "agent_auth_pending" })).json()) as { response: { error: string } };
    expect(pending.response.error).toBe("authorization_pending");
    const mixed = (await (await simulate(base, { scenario: "batch_mixed_result" })).json()) as { response: { results: { status: string }[] } };
    expect(new Set(mixed.response.results.map((r) => r.status))).toEqual(new Set(["ok", "error", "skipped"]));
  });

  it("refuses anything but strict JSON {scenario} with a known value", async () => {
    for (const body of ["nope", "[]", {}, { scenario: "agent_auth_unknown" }, { scenario: "agent_auth_pending", extra: 1 }, { scenario: 1 }]) {
      const res = await simulate(base, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "invalid_request", error_description: expect.any(String) });
    }
    const wrongType = await simulate(base, { scenario: "agent_auth_pending" }, { "Content-Type": "text/plain" });
    expect(wrongType.status).toBe(400);
    await wrongType.arrayBuffer();
    const get = await fetch(`${base}/api/v1/sandbox/simulate`);
    expect(get.status).toBe(405);
    await get.arrayBuffer();
  });
});

describe("with the database unreachable (and private release mode)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ label: "db-down", databaseUrl: "postgresql://nobody@127.0.0.1:1/none", env: { RELEASE_MODE: "private" } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("the simulator still answers 200 with the same bytes, while a database-backed route answers 503", async () => {
    for (const scenario of SIMULATOR_SCENARIOS) {
      const down = await simulate(server.baseUrl, { scenario });
      expect(down.status).toBe(200);
      const up = await (await simulate(base, { scenario })).text();
      // Same bytes apart from the base URL, which differs between the two servers (it is also inside the
      // synthetic assertion's claims, so that one value is compared decoded), and the batch scenario's search
      // scores: its items are real docs answers, scored over the text as each deployment fills in its base URL.
      const normalize = (text: string, url: string) =>
        text
          .replace(/"score":[0-9.]+/g, '"score":0')
          .replace(
            /"identity_assertion":"([^"]+)"/,
            (_m, jwt: string) =>
              `"identity_assertion":"${jwt
                .split(".")
                .slice(0, 2)
                .map((p) => Buffer.from(p, "base64url").toString())
                .join(".")}"`,
          )
          .replaceAll(url, "{base}");
      expect(normalize(await down.text(), server.baseUrl)).toBe(normalize(up, base));
    }
    const batch = await fetch(`${server.baseUrl}/api/v1/batch`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ items: [{ id: "a", operation: "docs.ask", arguments: { query: "scopes" } }] }),
    });
    expect(batch.status).toBe(503);
    expect(((await batch.json()) as { error: string }).error).toBe("temporarily_unavailable");
  });

  it("docs and /ask need no database either", async () => {
    expect((await fetch(`${server.baseUrl}/ask?query=scopes`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/docs/scopes.md`)).status).toBe(200);
  });

  it("/auth.md is the JSON 404 in private release mode", async () => {
    const res = await fetch(`${server.baseUrl}/auth.md`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(((await res.json()) as { error: string }).error).toBe("not_found");
  });
});

/** The members of a JSON value, recursively (an array by its first item): its shape, without its values. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 ? [shape(value[0])] : [];
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, shape(member)]));
  return typeof value;
}

describe("the simulator's texts are the server's (issue 51)", () => {
  let auth = "";
  useAuthServer((url) => {
    auth = url;
  });
  const scenario = async (name: string) => ((await (await simulate(auth, { scenario: name })).json()) as { response: unknown }).response;

  it("agent_auth_pending is, byte for byte, what a real poll answers before the member decides; challenge and success have its members", async () => {
    const email = await newMember();
    const reg = await register(auth, email);
    const pending = await poll(auth, reg.claim_token);
    expect(pending.status).toBe(400);
    expect(await pending.json()).toEqual(await scenario("agent_auth_pending"));
    expect(shape(await scenario("agent_auth_challenge"))).toEqual(shape(reg));
    expect(await approveAs(reg, email)).toBe("approved");
    await new Promise((resolve) => setTimeout(resolve, (reg.claim.interval + 0.5) * 1000));
    const success = await poll(auth, reg.claim_token);
    expect(success.status).toBe(200);
    expect(shape(await scenario("agent_auth_success"))).toEqual(shape(await success.json()));
  }, 30_000);

  it("batch_mixed_result's items are what a batch of the same items answers (the skipped one apart)", async () => {
    const ran = SIMULATED_BATCH_ITEMS.slice(0, 3);
    const res = await fetch(`${auth}/api/v1/batch`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": freshIp() },
      body: JSON.stringify({ items: ran }),
    });
    expect(res.status).toBe(200);
    const real = (await res.json()) as { results: unknown[] };
    const simulated = (await scenario("batch_mixed_result")) as { results: unknown[] };
    expect(simulated.results.slice(0, 3)).toEqual(real.results);
    expect(simulated.results[3]).toEqual({ id: SIMULATED_BATCH_ITEMS[3].id, operation: SIMULATED_BATCH_ITEMS[3].operation, status: "skipped" });
  });
});
