// Issue 43 item 2: the same operations in every start mode. The same requests (an own-account read with a bad token,
// GET /ask, an MCP call, a body refused before any handler runs, an unknown API path, the login page, a page's markdown
// twin, a path no route names, a page that answers notFound() and one that redirects) against `npm start` (the node:http front on), `npm start` with NODE_FRONT=off, and a
// bare `next start` (as on a plain Node host or Vercel). In each mode every request gives exactly one JSON log line
// with the same fields and the same route template (from the route table), answers with its X-Request-Id, and moves
// its /metrics counter (parsed by a real Prometheus text parser) by exactly one.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareNextStart, stopBare, untilAnswering, type BareStart } from "../support/bare-next";
import { startServer, type TestServer } from "../support/server";

const METRICS_TOKEN = "metrics-token-for-parity-0123456789";

interface Probe {
  name: string;
  path: string;
  init?: RequestInit;
  method: string;
  route: string;
  status: number;
}

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };

const PROBES: Probe[] = [
  {
    name: "own-account read, bad token",
    path: "/api/v1/agent/account",
    init: { headers: { Authorization: `Bearer aca_${"a".repeat(43)}` } },
    method: "GET",
    route: "/api/v1/agent/account",
    status: 401,
  },
  { name: "/ask", path: "/ask?query=revocation", method: "GET", route: "/ask", status: 200 },
  {
    name: "MCP call",
    path: "/mcp",
    init: { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) },
    method: "POST",
    route: "/mcp",
    status: 200,
  },
  {
    // Refused before any handler: by server.ts's body gate under `npm start`, by proxy.ts without it.
    name: "body over its route's limit",
    path: "/oauth2/token",
    init: { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `grant_type=${"x".repeat(17 * 1024)}` },
    method: "POST",
    route: "/oauth2/token",
    status: 413,
  },
  { name: "unknown API path", path: "/api/no-such-path", method: "GET", route: "/api/[...path]", status: 404 },
  { name: "login page", path: "/login", init: { headers: { Accept: "text/html" } }, method: "GET", route: "/login", status: 200 },
  { name: "markdown twin of a page", path: "/docs.md", method: "GET", route: "/docs", status: 200 },
  { name: "no route", path: "/no-such-page-at-all", init: { headers: { Accept: "text/html" } }, method: "GET", route: "(unmatched)", status: 404 },
  // A page's status is known only once it has rendered: each line carries the status sent, not the proxy's guess.
  {
    name: "a page's notFound()",
    path: "/members/no-such-member-of-this-community",
    init: { headers: { Accept: "text/html" } },
    method: "GET",
    route: "/members/[slug]",
    status: 404,
  },
  { name: "a page's redirect()", path: "/account", init: { headers: { Accept: "text/html" } }, method: "GET", route: "/account", status: 307 },
];

interface Mode {
  name: string;
  baseUrl: string;
  output: () => string;
}

type Line = Record<string, unknown>;

/** The JSON request lines the process printed. */
function requestLines(output: string): Line[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.type === "request");
}

async function until<T>(what: string, read: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** agent_gate_http_requests_total by "method route status". */
async function requestCounts(mode: Mode): Promise<Map<string, number>> {
  const res = await fetch(`${mode.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status, `${mode.name} /metrics`).toBe(200);
  const counts = new Map<string, number>();
  const family = parsePrometheusTextFormat(await res.text()).find((candidate) => candidate.name === "agent_gate_http_requests_total");
  for (const sample of family?.metrics ?? []) {
    const labels = sample.labels ?? {};
    counts.set(`${labels.method} ${labels.route} ${labels.status}`, Number(sample.value));
  }
  return counts;
}

const modes: Mode[] = [];
let front: TestServer;
let frontOff: TestServer;
let bare: BareStart;

beforeAll(async () => {
  [front, frontOff, bare] = await Promise.all([
    startServer({ label: "parity-front", env: { METRICS_TOKEN } }),
    startServer({ label: "parity-front-off", env: { METRICS_TOKEN, NODE_FRONT: "off" } }),
    bareNextStart("1", "production", { METRICS_TOKEN }),
  ]);
  await untilAnswering(bare);
  modes.push(
    { name: "npm start", baseUrl: front.baseUrl, output: front.output },
    { name: "npm start, NODE_FRONT=off", baseUrl: frontOff.baseUrl, output: frontOff.output },
    { name: "bare next start", baseUrl: bare.url, output: bare.output },
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([front?.stop(), frontOff?.stop(), stopBare(bare)]);
});

describe("log line, X-Request-Id and metrics in every start mode", () => {
  it("gives each request one line with the same fields and route template, its X-Request-Id, and one count", async () => {
    const fieldSets = new Map<string, string>();
    for (const mode of modes) {
      // Warm each route first (a first request loads its code), then count from a scrape.
      for (const probe of PROBES) await (await fetch(`${mode.baseUrl}${probe.path}`, probe.init)).arrayBuffer();
      const before = await requestCounts(mode);
      const sent: { probe: Probe; id: string }[] = [];
      for (const [index, probe] of PROBES.entries()) {
        const id = `parity-${modes.indexOf(mode)}-${index}`;
        const headers = new Headers(probe.init?.headers);
        headers.set("X-Request-Id", id);
        const res = await fetch(`${mode.baseUrl}${probe.path}`, { ...probe.init, headers, redirect: "manual" });
        await res.arrayBuffer();
        expect(res.status, `${mode.name}: ${probe.name}`).toBe(probe.status);
        expect(res.headers.get("x-request-id"), `${mode.name}: ${probe.name}`).toBe(id);
        sent.push({ probe, id });
      }
      // A request without an id of its own gets a new one, answered and logged.
      const fresh = await fetch(`${mode.baseUrl}/healthz`, { headers: { "X-Request-Id": "not a valid id" } });
      await fresh.arrayBuffer();
      const freshId = fresh.headers.get("x-request-id");
      expect(freshId, mode.name).toMatch(/^[0-9a-f-]{36}$/);
      // Lines are written in order: once the last request's line is there, any second line of an earlier one would be too.
      await until(`${mode.name}: the last request's line`, () => requestLines(mode.output()).find((line) => line.request_id === freshId));
      const lines = requestLines(mode.output());
      for (const { probe, id } of sent) {
        const mine = lines.filter((line) => line.request_id === id);
        expect(mine, `${mode.name}: ${probe.name}: one line: ${JSON.stringify(mine)}`).toHaveLength(1);
        const [line] = mine;
        expect(line, `${mode.name}: ${probe.name}`).toMatchObject({ type: "request", method: probe.method, route: probe.route, status: probe.status });
        expect(typeof line!.duration_ms).toBe("number");
        expect(typeof line!.client_ip).toBe("string");
        fieldSets.set(`${mode.name}: ${probe.name}`, Object.keys(line!).sort().join(","));
      }
      const after = await requestCounts(mode);
      for (const { probe } of sent) {
        const key = `${probe.method} ${probe.route} ${probe.status}`;
        expect((after.get(key) ?? 0) - (before.get(key) ?? 0), `${mode.name}: ${probe.name}: ${key}`).toBe(1);
      }
    }
    // The same fields in every line of every mode.
    expect(new Set(fieldSets.values()).size, [...fieldSets.entries()].map(([name, keys]) => `${name}: ${keys}`).join("\n")).toBe(1);
  }, 120_000);
});
