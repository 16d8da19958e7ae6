// Issue #17: the operator endpoints under `next start`: /healthz and /readyz (JSON, no-store, HEAD, JSON
// 405), readiness failing by name with the database unreachable, /metrics off by default and behind
// METRICS_TOKEN, the janitor's cron route behind CRON_SECRET.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startServer, type TestServer } from "../support/server";
import { testProvider } from "../support/databases";

const base = inject("baseUrl");
const CRON_SECRET = "cron-secret-for-tests-0123456789";
const METRICS_TOKEN = "metrics-token-for-tests-0123456789";
let unreachable: TestServer;

beforeAll(async () => {
  const key = { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" };
  unreachable = await startServer({
    label: "ops",
    env: { DATABASE_URL: "postgresql://agent:gate@127.0.0.1:1/unreachable", SIGNING_KEYS: JSON.stringify([key]), CRON_SECRET, METRICS_TOKEN },
  });
});
afterAll(async () => {
  await unreachable?.stop();
});

describe("/healthz and /readyz", () => {
  it("alive and ready answer 200 JSON, never cached; HEAD too; other methods JSON 405", async () => {
    const alive = await fetch(`${base}/healthz`);
    expect(alive.status).toBe(200);
    expect(alive.headers.get("cache-control")).toBe("no-store");
    expect(await alive.json()).toEqual({ status: "ok", checks: { process: "ok" } });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect(await ready.json()).toEqual({
      status: "ok",
      checks: { database: "ok", migrations: "ok", signing_keys: "ok", shared_state: "ok" },
      shared_state_store: testProvider() === "postgres" ? "postgres" : "memory",
    });
    for (const p of ["/healthz", "/readyz"]) {
      const head = await fetch(`${base}${p}`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
      const post = await fetch(`${base}${p}`, { method: "POST" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
      expect(((await post.json()) as { error: string }).error).toBe("method_not_allowed");
    }
  });

  it("with the database unreachable: alive 200, ready 503 naming the database", async () => {
    expect((await fetch(`${unreachable.baseUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${unreachable.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect(await ready.json()).toEqual({
      status: "fail",
      checks: { database: "fail", migrations: "not_checked", signing_keys: "ok", shared_state: "ok" },
      shared_state_store: "postgres",
    });
  });
});

describe("/metrics", () => {
  it("is off (404) without METRICS_TOKEN", async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(404);
  });

  it("needs Authorization: Bearer <METRICS_TOKEN>, then scrapes as Prometheus text", async () => {
    expect((await fetch(`${unreachable.baseUrl}/metrics`)).status).toBe(401);
    expect((await fetch(`${unreachable.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}x` } })).status).toBe(401);
    // A database failure first, so its counter has a sample.
    await fetch(`${unreachable.baseUrl}/api/v1/agent/account`, { headers: { Authorization: `Bearer aca_${"a".repeat(43)}` } });
    const res = await fetch(`${unreachable.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const names = parsePrometheusTextFormat(await res.text()).map((family) => family.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "agent_gate_http_requests_total",
        "agent_gate_token_grants_total",
        "agent_gate_database_errors_total",
        "agent_gate_nodejs_eventloop_lag_seconds",
        "agent_gate_nodejs_heap_size_used_bytes",
      ]),
    );
  });
});

describe("/api/cron/janitor", () => {
  it("answers 401 without the right CRON_SECRET (and when none is set), GET only", async () => {
    expect((await fetch(`${base}/api/cron/janitor`)).status).toBe(401);
    expect((await fetch(`${base}/api/cron/janitor`, { headers: { Authorization: `Bearer ${CRON_SECRET}` } })).status).toBe(401);
    expect((await fetch(`${unreachable.baseUrl}/api/cron/janitor`, { headers: { Authorization: "Bearer wrong-secret-0123456789" } })).status).toBe(401);
    expect((await fetch(`${unreachable.baseUrl}/api/cron/janitor`, { method: "POST", headers: { Authorization: `Bearer ${CRON_SECRET}` } })).status).toBe(405);
  });

  it("with the secret runs a pass (here the database is unreachable: 503, never a stack)", async () => {
    const res = await fetch(`${unreachable.baseUrl}/api/cron/janitor`, { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe("temporarily_unavailable");
  });
});

describe("X-Request-Id", () => {
  it("every answer carries one, from the node:http front and from Next alike: the client's when well-formed, else a new one", async () => {
    // /ask and /healthz are the front's; /openapi.json and the JSON 404 are Next's.
    for (const path of ["/ask?query=revocation", "/healthz", "/openapi.json", "/api/no-such-path"]) {
      const echoed = await fetch(`${base}${path}`, { headers: { "X-Request-Id": "trace-me.42" } });
      expect(echoed.headers.get("x-request-id"), path).toBe("trace-me.42");
      const replaced = await fetch(`${base}${path}`, { headers: { "X-Request-Id": "bad id with spaces" } });
      expect(replaced.headers.get("x-request-id"), path).toMatch(/^[0-9a-f-]{36}$/);
      expect(replaced.headers.getSetCookie?.() ?? []).toEqual([]);
    }
  });
});
