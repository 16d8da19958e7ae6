// Issue #17 items 2 and 3: one JSON log line per request (request id, method, route template, status,
// duration, client IP) written by observeRequest, as server.ts calls it; domain events logged and counted;
// no secret in the whole log after every flow; /metrics parsed by a real Prometheus text parser.
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideAttempt } from "@/lib/service-auth/lifecycle";
import { getDb } from "@/lib/db/prisma";
import { cancelDelegation } from "@/lib/delegations";
import type { ApiReply, ApiRequest } from "@/lib/http/api";
import { errorToReply } from "@/lib/http/route";
import { createLogger, requestIdFrom, setLogger } from "@/lib/observability/log";
import { handleMetrics } from "@/lib/operator/metrics";
import { recordRateLimitRefusal } from "@/lib/observability/metrics";
import { observeRequest } from "@/lib/server/observe";
import { resolveRoute, routeOfTarget } from "@/lib/routes";
import { handleClaimRefresh, handleRegistration, handleRevoke, handleToken } from "@/lib/service-auth/http";
import { apiRequest, webResponse } from "../../support/api";
import { markServerEntry } from "@/lib/http/server-entry";
import { useTestConfig } from "../../support/config";

// These servers stand in for server.ts, whose request listener makes the peer address this process's own.
markServerEntry();

const lines: string[] = [];
const capture = { write: (line: string) => void lines.push(line) };

const HANDLERS: Record<string, (request: ApiRequest) => Promise<ApiReply>> = {
  "/agent/identity": (request) => handleRegistration(request),
  "/agent/identity/claim": (request) => handleClaimRefresh(request),
  "/oauth2/token": (request) => handleToken(request),
  "/oauth2/revoke": (request) => handleRevoke(request),
};

function apiRequestOf(req: http.IncomingMessage, body: string): ApiRequest {
  return {
    method: req.method ?? "GET",
    target: req.url ?? "/",
    headers: { get: (name) => (req.headers[name.toLowerCase()] as string | undefined) ?? null },
    readBody: async () => ({ ok: true, value: body }) as never,
  };
}

// The server entry's order, in small: observe, then answer (here the handlers themselves).
const server = http.createServer((req, res) => {
  observeRequest(req, res, routeOfTarget(req.url).route);
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const handler = HANDLERS[(req.url ?? "/").split("?")[0]!];
    if (!handler) {
      res.statusCode = 404;
      res.end();
      return;
    }
    handler(apiRequestOf(req, Buffer.concat(chunks).toString("utf8"))).then(
      (reply) => {
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body ?? undefined);
      },
      (error: unknown) => {
        const reply = errorToReply(error);
        res.writeHead(reply.status, reply.headers);
        res.end(reply.body ?? undefined);
      },
    );
  });
});
let base = "";

beforeAll(async () => {
  setLogger(createLogger(capture, "info"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  setLogger(undefined);
  useTestConfig();
  await new Promise((resolve) => server.close(resolve));
});

const SNOOPED_COOKIE = "next-auth.session-token=cookie-secret-4f1b9c";
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function post(path: string, body: string, type: string, extra: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}?trace=query-secret-77`, { method: "POST", headers: { "Content-Type": type, Cookie: SNOOPED_COOKIE, ...extra }, body });
  return { res, json: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe("request ids", () => {
  it("keeps a well-formed X-Request-Id and replaces anything else", () => {
    expect(requestIdFrom("abc-123_.x")).toBe("abc-123_.x");
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        const id = requestIdFrom(header);
        expect(id).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
        if (!/^[A-Za-z0-9._-]{1,128}$/.test(header)) expect(id).not.toBe(header);
      }),
    );
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("names routes by their template from the route table, never the raw path", () => {
    const named: [path: string, route: string][] = [
      ["/members/ada-lovelace", "/members/[slug]"],
      ["/ask", "/ask"],
      ["/login/", "/login"],
      ["/api/no/such/thing", "/api/[...path]"],
      ["/page-markdown", "/page-markdown/[[...path]]"],
      ["/page-markdown/docs/oauth", "/page-markdown/[[...path]]"],
      ["/.well-known/agent-skills/claim/SKILL.md", "/.well-known/agent-skills/[name]/SKILL.md"],
      ["/docs/a/b", "(unmatched)"],
      ["/docs.md", "/docs"],
      ["/index.md", "/"],
      ["/nothing.md", "(unmatched)"],
      ["/_next/static/chunks/x.js", "(unmatched)"],
      ["/no/such/path/at/all", "(unmatched)"],
    ];
    for (const [path, route] of named) expect(resolveRoute(path).route, path).toBe(route);
  });
});

describe("one log line per request, no secret anywhere in the log", () => {
  it("drives every flow and finds none of its secrets in the log", async () => {
    lines.length = 0;
    const ada = await getDb().member.findUniqueOrThrow({ where: { email: "ada@example.com" } });
    const secrets: string[] = [SNOOPED_COOKIE, "cookie-secret-4f1b9c", "query-secret-77", "ada@example.com"];

    const reg = await post(
      "/agent/identity",
      JSON.stringify({ type: "service_auth", login_hint: "ada@example.com", client_name: "Log Agent", scopes: ["agent.account.read"] }),
      "application/json",
      { "X-Request-Id": "trace-me-1" },
    );
    expect(reg.res.status).toBe(200);
    expect(reg.res.headers.get("x-request-id")).toBe("trace-me-1");
    const claimToken = String(reg.json!.claim_token);
    const verification = (reg.json!.claim as { verification_uri: string }).verification_uri;
    const attemptToken = new URL(verification).searchParams.get("claim_attempt_token")!;
    const userCode = (reg.json!.claim as { user_code: string }).user_code;
    secrets.push(claimToken, attemptToken, userCode);

    // Polled before a decision, then a wrong code, then approved.
    const pending = await post("/oauth2/token", form({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: claimToken }), "application/x-www-form-urlencoded");
    expect(pending.json!.error).toBe("authorization_pending");
    expect(
      (await decideAttempt({ attemptToken, member: { id: ada.id, email: ada.email }, userCode: "00000000" === userCode ? "11111111" : "00000000", decision: "approve" })).outcome,
    ).toBe("wrong_code");
    expect((await decideAttempt({ attemptToken, member: { id: ada.id, email: ada.email }, userCode, decision: "approve" })).outcome).toBe("approved");
    await new Promise((resolve) => setTimeout(resolve, 5100));
    const granted = await post("/oauth2/token", form({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: claimToken }), "application/x-www-form-urlencoded");
    expect(granted.res.status).toBe(200);
    const accessToken = String(granted.json!.access_token);
    const assertion = String(granted.json!.identity_assertion);
    secrets.push(accessToken, assertion);

    // Exchanged, a bad assertion refused, the token revoked with an Authorization header, the delegation cancelled.
    const exchanged = await post(
      "/oauth2/token",
      form({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion, resource: "http://localhost:3000/api" }),
      "application/x-www-form-urlencoded",
      { Authorization: `Bearer ${accessToken}` },
    );
    expect(exchanged.res.status).toBe(200);
    secrets.push(String(exchanged.json!.access_token));
    const refused = await post(
      "/oauth2/token",
      form({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: `${assertion.slice(0, -4)}AAAA`, resource: "http://localhost:3000/api" }),
      "application/x-www-form-urlencoded",
    );
    expect(refused.json!.error).toBe("invalid_grant");
    const revoked = await fetch(`${base}/oauth2/revoke`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: `Bearer ${accessToken}` },
      body: form({ token: accessToken }),
    });
    expect(revoked.status).toBe(200);
    const delegation = await getDb().delegation.findFirstOrThrow({ where: { memberId: ada.id, clientName: "Log Agent" } });
    expect((await cancelDelegation(ada.id, delegation.id)).outcome).toBe("cancelled");
    // A refresh of the cancelled claim (409) and a handler failure (an error line with its stack).
    await post("/agent/identity/claim", JSON.stringify({ claim_token: claimToken, email: "ada@example.com" }), "application/json");
    errorToReply(new Error("simulated failure"));
    await new Promise((resolve) => setTimeout(resolve, 50));

    const whole = lines.join("");
    for (const secret of secrets) expect(whole, "a secret reached the log").not.toContain(secret);
    const entries = parsed();
    const requests = entries.filter((e) => e.type === "request");
    expect(requests).toHaveLength(7);
    expect(requests[0]).toMatchObject({ level: "info", request_id: "trace-me-1", method: "POST", route: "/agent/identity", status: 200, client_ip: "127.0.0.1" });
    for (const entry of requests) {
      expect(typeof entry.duration_ms).toBe("number");
      expect(entry.route).not.toContain("?");
      expect(String(entry.request_id)).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    }
    const events = entries.filter((e) => e.type === "delegation").map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(["registered", "approved", "token_issued", "exchanged"]));
    const failure = entries.find((e) => e.type === "error");
    expect(failure).toMatchObject({ level: "error", error_name: "Error" });
    expect(String(failure!.stack)).toContain("simulated failure");
  }, 30_000);

  it("redacts Authorization and Cookie headers wherever a line carries them, and honours the level", () => {
    const own: string[] = [];
    const log = createLogger({ write: (line: string) => void own.push(line) }, "warn");
    log.warn({ headers: { authorization: "Bearer aca_secret", cookie: "a=b" }, req: { headers: { authorization: "Bearer x1", cookie: "c=d" } } }, "with headers");
    log.info({ note: "below the level" }, "dropped");
    expect(own).toHaveLength(1);
    expect(own[0]).not.toMatch(/aca_secret|a=b|Bearer x1|c=d/);
    expect(own[0]).toContain("[redacted]");
  });
});

const metricsAnswer = async (request: Request): Promise<Response> => webResponse(await handleMetrics(apiRequest(request)));

describe("/metrics", () => {
  it("is off without METRICS_TOKEN, needs the token, and parses with the families", async () => {
    expect((await metricsAnswer(new Request("http://localhost/metrics"))).status).toBe(404);
    useTestConfig({ METRICS_TOKEN: "metrics-token-0123456789" });
    expect((await metricsAnswer(new Request("http://localhost/metrics"))).status).toBe(401);
    expect((await metricsAnswer(new Request("http://localhost/metrics", { headers: { Authorization: "Bearer metrics-token-0123456788" } }))).status).toBe(401);
    recordRateLimitRefusal("identity:ip");
    const res = await metricsAnswer(new Request("http://localhost/metrics", { headers: { Authorization: "Bearer metrics-token-0123456789" } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const families = parsePrometheusTextFormat(await res.text());
    const byName = new Map(families.map((family) => [family.name, family]));
    for (const name of [
      "agent_gate_http_requests_total",
      "agent_gate_http_request_duration_seconds",
      "agent_gate_token_grants_total",
      "agent_gate_delegation_decisions_total",
      "agent_gate_rate_limit_refusals_total",
      "agent_gate_database_errors_total",
      "agent_gate_nodejs_eventloop_lag_seconds",
      "agent_gate_nodejs_heap_size_used_bytes",
    ])
      expect(byName.has(name), name).toBe(true);
    const grants = byName.get("agent_gate_token_grants_total")!.metrics.map((m) => ({ ...m.labels, value: Number(m.value) }));
    expect(grants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ grant_type: "claim", outcome: "authorization_pending" }),
        expect.objectContaining({ grant_type: "claim", outcome: "approved" }),
        expect.objectContaining({ grant_type: "jwt-bearer", outcome: "issued" }),
        expect.objectContaining({ grant_type: "jwt-bearer", outcome: "invalid_grant" }),
      ]),
    );
    const decisions = byName.get("agent_gate_delegation_decisions_total")!.metrics.map((m) => m.labels?.decision);
    expect(decisions).toContain("approved");
    const requests = byName.get("agent_gate_http_requests_total")!.metrics.map((m) => m.labels);
    expect(requests).toEqual(expect.arrayContaining([{ method: "POST", route: "/oauth2/token", status: "200" }]));
    expect(byName.get("agent_gate_rate_limit_refusals_total")!.metrics.map((m) => m.labels)).toEqual(expect.arrayContaining([{ rule: "identity:ip" }]));
  });
});
