// Issue 43 item 3: OpenTelemetry traces reach a real OTLP/HTTP receiver (this file's own node:http server, which
// reads the OTLP JSON encoding the exporter sends under OTEL_EXPORTER_OTLP_PROTOCOL=http/json), under `npm start`
// and under a bare `next start`. Four flows, each with a caller's W3C trace context: a member's approval on
// /agent/authorize/decision, a JWT-bearer exchange at /oauth2/token and an A2A SendMessage (the `traceparent` header),
// and an MCP 2026-07-28 tools/call (`params._meta.traceparent`); and two pages, one found and one whose notFound() sends
// 404. Checked: each request is one SERVER span named by its
// route template with its status and class of work, the caller's trace id and span id are its parent, store
// statements and the A2A skill are its descendants, the tool call continues the caller's MCP trace, and no secret of
// the flows (token, code, assertion, password, e-mail, cookie) appears in any attribute. And (issue 51) each request's
// log line, its span and its metric sample name the same route, the route table's (lib/routes resolveRoute): markdown
// twins by their page, a path with a trailing slash by its route, a path that only looks like a dynamic entry's and an
// unknown one as "(unmatched)".
import http from "node:http";
import { randomBytes } from "node:crypto";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareNextStart, stopBare, untilAnswering, type BareStart } from "../support/bare-next";
import { sessionCookie } from "../support/browser-session";
import { startServer, type TestServer } from "../support/server";
import { DEMO_PASSWORD } from "../../lib/demo/data";

// ---------------------------------------------------------------- the receiver (OTLP/HTTP, JSON encoding)

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** SPAN_KIND_INTERNAL = 1, SPAN_KIND_SERVER = 2 (opentelemetry/proto/trace/v1/trace.proto). */
  kind: number;
  attributes?: OtlpKeyValue[];
  links?: { traceId: string; spanId: string }[];
}
interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[] }[];
}

interface OtlpDataPoint {
  attributes?: OtlpKeyValue[];
  asInt?: number | string;
  asDouble?: number;
  count?: number | string;
}
interface ExportMetricsServiceRequest {
  resourceMetrics?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeMetrics?: {
      scope?: { name?: string };
      metrics?: { name: string; unit?: string; sum?: { dataPoints?: OtlpDataPoint[] }; histogram?: { dataPoints?: OtlpDataPoint[] } }[];
    }[];
  }[];
}

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_SERVER = 2;

interface Received {
  span: OtlpSpan;
  scope: string | undefined;
  resource: OtlpKeyValue[];
}

class OtlpReceiver {
  readonly received: Received[] = [];
  readonly contentTypes = new Set<string>();
  /** Metrics exports (OTLP JSON), as they arrived, and the content type of every metrics post. */
  readonly metrics: ExportMetricsServiceRequest[] = [];
  readonly metricsPosts: string[] = [];
  /** Bodies that were not JSON (the default http/protobuf encoding), as they arrived. */
  readonly binaryBodies: Buffer[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      // Pushed metrics (issue 50 item 5) are kept apart: this receiver's other readers look at traces.
      if (req.url?.endsWith("/v1/metrics")) {
        this.metricsPosts.push(`${req.headers["content-type"] ?? ""}`);
        if (req.headers["content-type"] === "application/json") this.metrics.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportMetricsServiceRequest);
        res.writeHead(200, { "Content-Type": String(req.headers["content-type"] ?? "application/json") }).end(req.headers["content-type"] === "application/json" ? "{}" : "");
        return;
      }
      this.contentTypes.add(`${req.method} ${req.url} ${req.headers["content-type"] ?? ""}`);
      if (req.headers["content-type"] === "application/x-protobuf") {
        this.binaryBodies.push(Buffer.concat(chunks));
        res.writeHead(200, { "Content-Type": "application/x-protobuf" }).end();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ExportTraceServiceRequest;
        for (const resourceSpans of body.resourceSpans ?? []) {
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) this.received.push({ span, scope: scopeSpans.scope?.name, resource: resourceSpans.resource?.attributes ?? [] });
          }
        }
        res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      } catch {
        res.writeHead(400).end();
      }
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  spans(): OtlpSpan[] {
    return this.received.map((r) => r.span);
  }

  /** Waits (bounded) until `found` holds for what has arrived. */
  async until(found: (spans: OtlpSpan[]) => boolean, what: string, timeoutMs = 45_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!found(this.spans())) {
      if (Date.now() > deadline)
        throw new Error(
          `no ${what} within ${timeoutMs} ms; spans received: ${this.spans()
            .map((s) => s.name)
            .join(", ")}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function attribute(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

/** Every string an attribute holds, nested arrays included. */
function attributeStrings(attributes: OtlpKeyValue[]): string[] {
  const out: string[] = [];
  const walk = (value: OtlpValue): void => {
    if (value.stringValue !== undefined) out.push(value.stringValue);
    if (value.intValue !== undefined) out.push(String(value.intValue));
    for (const item of value.arrayValue?.values ?? []) walk(item);
  };
  for (const { value } of attributes) walk(value);
  return out;
}

// ---------------------------------------------------------------- the flows

interface CallerTrace {
  traceId: string;
  spanId: string;
  traceparent: string;
}

function callerTrace(): CallerTrace {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

interface FlowResult {
  approval: CallerTrace;
  exchange: CallerTrace;
  mcp: CallerTrace;
  a2a: CallerTrace;
  /** Every secret the flow handled: none may appear in a span. */
  secrets: string[];
}

/** A member approves an agent, the agent exchanges its identity assertion, and an MCP 2026 client calls a tool. */
async function runFlows(base: string): Promise<FlowResult> {
  const email = "grace@example.com";
  const ip = `198.18.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  const json = { "Content-Type": "application/json", "X-Forwarded-For": ip };
  const urlencoded = { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": ip };

  const registered = await fetch(`${base}/agent/identity`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ type: "service_auth", login_hint: email, client_name: "Tracing Test Agent" }),
  });
  expect(registered.status).toBe(200);
  const reg = (await registered.json()) as { claim_token: string; claim: { user_code: string; verification_uri: string } };
  const attemptToken = new URL(reg.claim.verification_uri).searchParams.get("claim_attempt_token") ?? "";

  // The approval, as a member's browser makes it.
  const cookie = await sessionCookie(base, email);
  const page = await fetch(reg.claim.verification_uri, { headers: { Cookie: cookie } });
  const formToken = /name="form_token" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
  expect(page.status).toBe(200);
  const approval = callerTrace();
  const decision = await fetch(`${base}/agent/authorize/decision`, {
    method: "POST",
    redirect: "manual",
    headers: { ...urlencoded, Cookie: cookie, "Sec-Fetch-Site": "same-origin", Origin: base, traceparent: approval.traceparent },
    body: form({ claim_attempt_token: attemptToken, form_token: formToken, user_code: reg.claim.user_code, decision: "approve" }),
  });
  await decision.arrayBuffer();
  expect(decision.status).toBe(303);

  const polled = await fetch(`${base}/oauth2/token`, {
    method: "POST",
    headers: urlencoded,
    body: form({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: reg.claim_token }),
  });
  expect(polled.status).toBe(200);
  const tokens = (await polled.json()) as { access_token: string; identity_assertion: string };

  // The JWT-bearer exchange, with the caller's trace context.
  const exchange = callerTrace();
  const exchanged = await fetch(`${base}/oauth2/token?probe=query-must-not-leak`, {
    method: "POST",
    headers: { ...urlencoded, traceparent: exchange.traceparent, tracestate: "vendor=opaque" },
    body: form({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: tokens.identity_assertion, resource: `${base}/api` }),
  });
  const fresh = (await exchanged.json()) as { access_token?: string };
  expect(exchanged.status).toBe(200);
  // The answer names its trace (W3C Trace Context Level 2 traceresponse): the caller's trace id, the server span's id.
  expect(exchanged.headers.get("traceresponse")).toMatch(new RegExp(`^00-${exchange.traceId}-[0-9a-f]{16}-0[01]$`));

  // An MCP 2026-07-28 tools/call whose caller's trace context rides in params._meta (no traceparent header).
  const mcp = callerTrace();
  const called = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      ...json,
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "lookup_member",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "lookup_member",
        arguments: { name_or_slug: "Ada Lovelace" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "tracing-test", version: "1" },
          traceparent: mcp.traceparent,
        },
      },
    }),
  });
  const answer = (await called.json()) as { result?: { isError?: boolean } };
  expect(called.status).toBe(200);
  expect(answer.result?.isError).not.toBe(true);

  // An A2A 1.0 SendMessage whose caller's trace context is the traceparent header.
  const a2a = callerTrace();
  const sent = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { ...json, "A2A-Version": "1.0", traceparent: a2a.traceparent },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "t",
      method: "SendMessage",
      params: {
        message: {
          messageId: randomBytes(8).toString("hex"),
          role: "ROLE_USER",
          parts: [{ data: { skill: "lookup_member", input: { name_or_slug: "grace-hopper" } }, mediaType: "application/json" }],
        },
      },
    }),
  });
  const task = (await sent.json()) as { result?: { task?: { status?: { state?: string } } } };
  expect(task.result?.task?.status?.state).toBe("TASK_STATE_COMPLETED");

  const sessionValues = cookie.split("; ").map((c) => c.slice(c.indexOf("=") + 1));
  const secrets = [
    reg.claim_token,
    attemptToken,
    reg.claim.user_code,
    formToken,
    tokens.access_token,
    tokens.identity_assertion,
    fresh.access_token ?? "",
    DEMO_PASSWORD,
    email,
    ...sessionValues,
  ];
  return { approval, exchange, mcp, a2a, secrets: secrets.filter((s) => s.length >= 6) };
}

// ---------------------------------------------------------------- the checks

function byId(spans: OtlpSpan[]): Map<string, OtlpSpan> {
  return new Map(spans.map((span) => [span.spanId, span]));
}

/** The ids of a span's ancestors, nearest first. */
function ancestors(span: OtlpSpan, index: Map<string, OtlpSpan>): string[] {
  const out: string[] = [];
  let parent = span.parentSpanId;
  while (parent && !out.includes(parent)) {
    out.push(parent);
    parent = index.get(parent)?.parentSpanId;
  }
  return out;
}

function serverSpan(spans: OtlpSpan[], trace: CallerTrace, name: string): OtlpSpan | undefined {
  return spans.find((span) => span.traceId === trace.traceId && span.kind === SPAN_KIND_SERVER && span.name === name);
}

/** The request span of a caller's trace: its parent is the caller's span; its store statements descend from it. */
function checkRequest(spans: OtlpSpan[], trace: CallerTrace, name: string, route: string, workClass: string, status: number): void {
  const server = serverSpan(spans, trace, name);
  expect(server, `${name} in the caller's trace`).toBeDefined();
  expect(server!.parentSpanId).toBe(trace.spanId);
  expect(attribute(server!, "http.route")).toBe(route);
  expect(attribute(server!, "http.request.method")).toBe("POST");
  expect(attribute(server!, "http.response.status_code")).toBe(status);
  expect(attribute(server!, "agent_gate.work_class")).toBe(workClass);
  // One server span per request.
  expect(spans.filter((span) => span.traceId === trace.traceId && span.kind === SPAN_KIND_SERVER)).toHaveLength(1);
  const index = byId(spans);
  const statements = spans.filter(
    (span) => span.traceId === trace.traceId && attribute(span, "db.system.name") !== undefined && attribute(span, "db.operation.name") !== undefined,
  );
  expect(statements.length, `store statements under ${name}`).toBeGreaterThan(0);
  for (const statement of statements) {
    expect(statement.kind).toBe(SPAN_KIND_INTERNAL);
    expect(ancestors(statement, index)).toContain(server!.spanId);
  }
}

/** Two pages requested with a caller's traceparent: one found, one not (its 404 comes from the page's notFound()). */
interface PageTraces {
  found: CallerTrace;
  missing: CallerTrace;
  foundAnswer: Response;
}

async function requestPages(base: string): Promise<PageTraces> {
  const found = callerTrace();
  const missing = callerTrace();
  const foundAnswer = await fetch(`${base}/docs/signing-agents?query-must-not-leak=1`, { headers: { traceparent: found.traceparent } });
  expect(foundAnswer.status).toBe(200);
  await foundAnswer.arrayBuffer();
  const missingAnswer = await fetch(`${base}/members/no-such-member-of-this-community`, { headers: { traceparent: missing.traceparent } });
  expect(missingAnswer.status).toBe(404);
  await missingAnswer.arrayBuffer();
  return { found, missing, foundAnswer };
}

/** A page's request span: in the caller's trace, the only server span there, with the page's final status. */
function checkPage(spans: OtlpSpan[], trace: CallerTrace, route: string, status: number): OtlpSpan {
  const server = serverSpan(spans, trace, `GET ${route}`);
  expect(server, `GET ${route} in the caller's trace`).toBeDefined();
  expect(server!.parentSpanId).toBe(trace.spanId);
  expect(attribute(server!, "http.route")).toBe(route);
  expect(attribute(server!, "http.request.method")).toBe("GET");
  expect(attribute(server!, "http.response.status_code")).toBe(status);
  expect(attribute(server!, "agent_gate.work_class")).toBe("general");
  expect(spans.filter((span) => span.traceId === trace.traceId && span.kind === SPAN_KIND_SERVER)).toHaveLength(1);
  return server!;
}

function checkTrace(receiver: OtlpReceiver, flows: FlowResult): void {
  const spans = receiver.spans();
  // Only our spans leave (Next's own are not exported), with the service's name.
  expect(new Set(receiver.received.map((r) => r.scope))).toEqual(new Set(["agent-gate"]));
  for (const { resource } of receiver.received) expect(resource.find((a) => a.key === "service.name")?.value.stringValue).toBe("agent-gate-tracing-test");
  expect([...receiver.contentTypes].every((line) => line === "POST /v1/traces application/json")).toBe(true);

  checkRequest(spans, flows.approval, "POST /agent/authorize/decision", "/agent/authorize/decision", "pages", 303);
  checkRequest(spans, flows.exchange, "POST /oauth2/token", "/oauth2/token", "token", 200);

  // MCP 2026: the tool call continues the caller's trace from params._meta, linked to the request's own span.
  const tool = spans.find((span) => span.traceId === flows.mcp.traceId && span.name === "tools/call lookup_member");
  expect(tool, "the tool call in the MCP caller's trace").toBeDefined();
  expect(tool!.parentSpanId).toBe(flows.mcp.spanId);
  expect(attribute(tool!, "gen_ai.tool.name")).toBe("lookup_member");
  const request = spans.find((span) => span.kind === SPAN_KIND_SERVER && span.name === "POST /mcp" && tool!.links?.some((link) => link.spanId === span.spanId));
  expect(request, "the /mcp request span the tool call links to").toBeDefined();
  expect(attribute(request!, "http.route")).toBe("/mcp");
  expect(attribute(request!, "agent_gate.work_class")).toBe("public");
  expect(attribute(request!, "http.response.status_code")).toBe(200);
  const index = byId(spans);
  const lookups = spans.filter((span) => span.traceId === flows.mcp.traceId && attribute(span, "db.system.name") !== undefined);
  expect(lookups.length).toBeGreaterThan(0);
  for (const lookup of lookups) expect(ancestors(lookup, index)).toContain(tool!.spanId);

  // A2A: the skill is a child of the request span, in the caller's trace (the traceparent header).
  const a2aRequest = serverSpan(spans, flows.a2a, "POST /a2a");
  expect(a2aRequest, "POST /a2a in the caller's trace").toBeDefined();
  expect(a2aRequest!.parentSpanId).toBe(flows.a2a.spanId);
  const skill = spans.find((span) => span.traceId === flows.a2a.traceId && span.name === "a2a skill lookup_member");
  expect(skill, "the skill in the caller's trace").toBeDefined();
  expect(ancestors(skill!, index)).toContain(a2aRequest!.spanId);

  // No secret, query string or full URL in any attribute of any span (or of the resource).
  const keys = new Set(receiver.received.flatMap((r) => [...(r.span.attributes ?? []), ...r.resource].map((a) => a.key)));
  for (const forbidden of ["url.query", "url.full", "http.target", "http.url", "url.path"]) expect(keys.has(forbidden), forbidden).toBe(false);
  const values = receiver.received.flatMap((r) => [...attributeStrings(r.span.attributes ?? []), r.span.name]);
  expect(values.filter((value) => value.includes("?") || value.includes("query-must-not-leak"))).toEqual([]);
  for (const secret of flows.secrets)
    expect(
      values.filter((value) => value.includes(secret)),
      "a secret in a span",
    ).toEqual([]);
}

const METRICS_TOKEN = "metrics-token-for-the-tracing-test";

const TRACING_ENV = (endpoint: string): Record<string, string> => ({
  METRICS_TOKEN,
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  OTEL_SERVICE_NAME: "agent-gate-tracing-test",
  OTEL_BSP_SCHEDULE_DELAY: "200",
});

/**
 * Runs the four flows and the two pages against `base`, waits for their spans, checks them (checkTrace, checkPage),
 * and checks that the request's log line carries its trace id (written where the request entered node:http, from its
 * span: server.ts's listener under npm start, lib/server/request-channel.ts under a bare next start).
 */
async function checkFlowsExported(receiver: OtlpReceiver, base: string, output: () => string): Promise<void> {
  const flows = await runFlows(base);
  // Pages: each request runs in its span from where it enters node:http (server.ts's listener under npm start,
  // lib/server/request-channel.ts under a bare next start), with the status finally sent.
  const pages = await requestPages(base);
  await receiver.until(
    (spans) =>
      serverSpan(spans, flows.approval, "POST /agent/authorize/decision") !== undefined &&
      serverSpan(spans, flows.exchange, "POST /oauth2/token") !== undefined &&
      spans.some((span) => span.traceId === flows.mcp.traceId && span.name === "tools/call lookup_member") &&
      spans.some((span) => span.traceId === flows.a2a.traceId && span.name === "a2a skill lookup_member") &&
      serverSpan(spans, pages.found, "GET /docs/[slug]") !== undefined &&
      serverSpan(spans, pages.missing, "GET /members/[slug]") !== undefined,
    "spans of the four flows and the two pages",
  );
  // A last batch may still be on its way: every statement of the flows ends before its request span does.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  checkTrace(receiver, flows);
  const spans = receiver.spans();
  const found = checkPage(spans, pages.found, "/docs/[slug]", 200);
  checkPage(spans, pages.missing, "/members/[slug]", 404);
  expect(pages.foundAnswer.headers.get("traceresponse")).toBe(`00-${pages.found.traceId}-${found.spanId}-01`);
  // The member page's lookup ran inside its span.
  const index = byId(spans);
  const lookups = spans.filter((span) => span.traceId === pages.missing.traceId && attribute(span, "db.system.name") !== undefined);
  expect(lookups.length, "the member page's store statements").toBeGreaterThan(0);
  for (const lookup of lookups) expect(ancestors(lookup, index)).toContain(serverSpan(spans, pages.missing, "GET /members/[slug]")!.spanId);
  const lines = output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { type?: string; route?: string; trace_id?: string });
  expect(lines.some((line) => line.type === "request" && line.route === "/oauth2/token" && line.trace_id === flows.exchange.traceId)).toBe(true);
  expect(lines.some((line) => line.type === "request" && line.route === "/agent/authorize/decision" && line.trace_id === flows.approval.traceId)).toBe(true);
  expect(lines.some((line) => line.type === "request" && line.route === "/docs/[slug]" && line.trace_id === pages.found.traceId)).toBe(true);
}

/** A request and the route the table gives it (lib/routes resolveRoute). */
interface RouteProbe {
  path: string;
  accept?: string;
  route: string;
  status: number;
}

const ROUTE_PROBES: RouteProbe[] = [
  { path: "/docs.md", route: "/docs", status: 200 },
  { path: "/index.md", route: "/", status: 200 },
  { path: "/docs", accept: "text/markdown", route: "/docs", status: 200 },
  { path: "/docs/signing-agents.md", route: "/docs/[slug]", status: 200 },
  { path: "/docs/signing-agents", accept: "text/html", route: "/docs/[slug]", status: 200 },
  { path: "/docs/a/b", accept: "text/html", route: "(unmatched)", status: 404 },
  { path: "/no/such/path/at/all", accept: "text/html", route: "(unmatched)", status: 404 },
  { path: "/api/no-such-thing", route: "/api/[...path]", status: 404 },
  { path: "/login/", accept: "text/html", route: "/login", status: 308 },
  { path: "/ask?query=revocation", route: "/ask", status: 200 },
];

/** agent_gate_http_requests_total by "method route status". */
async function requestCounts(base: string): Promise<Map<string, number>> {
  const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  const counts = new Map<string, number>();
  const family = parsePrometheusTextFormat(await res.text()).find((candidate) => candidate.name === "agent_gate_http_requests_total");
  for (const sample of family?.metrics ?? []) counts.set(`${sample.labels?.method} ${sample.labels?.route} ${sample.labels?.status}`, Number(sample.value));
  return counts;
}

/**
 * Each probe with a caller's traceparent and an X-Request-Id of its own: its log line, its request span and its metric
 * sample all name the probe's route.
 */
async function checkOneRoutePerRequest(receiver: OtlpReceiver, base: string, output: () => string): Promise<void> {
  const before = await requestCounts(base);
  const sent: { probe: RouteProbe; trace: CallerTrace; requestId: string }[] = [];
  for (const [index, probe] of ROUTE_PROBES.entries()) {
    const trace = callerTrace();
    const requestId = `one-route-${index}-${randomBytes(4).toString("hex")}`;
    const headers: Record<string, string> = { traceparent: trace.traceparent, "X-Request-Id": requestId };
    if (probe.accept) headers.Accept = probe.accept;
    const res = await fetch(`${base}${probe.path}`, { headers, redirect: "manual" });
    await res.arrayBuffer();
    expect(res.status, probe.path).toBe(probe.status);
    sent.push({ probe, trace, requestId });
  }
  await receiver.until(
    (spans) => sent.every(({ trace }) => spans.some((span) => span.traceId === trace.traceId && span.kind === SPAN_KIND_SERVER)),
    "a request span of every probe",
  );
  const after = await requestCounts(base);
  const lines = output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { type?: string; request_id?: string; route?: string; trace_id?: string });
  const spans = receiver.spans();
  const expectedCounts = new Map<string, number>();
  for (const { probe, trace, requestId } of sent) {
    const logged = lines.filter((line) => line.type === "request" && line.request_id === requestId);
    expect(logged, `${probe.path}: one log line`).toHaveLength(1);
    expect(logged[0], probe.path).toMatchObject({ route: probe.route, trace_id: trace.traceId });
    const traced = spans.filter((span) => span.traceId === trace.traceId && span.kind === SPAN_KIND_SERVER);
    expect(traced, `${probe.path}: one request span`).toHaveLength(1);
    expect(attribute(traced[0]!, "http.route"), probe.path).toBe(probe.route);
    expect(traced[0]!.name, probe.path).toBe(`GET ${probe.route}`);
    const key = `GET ${probe.route} ${probe.status}`;
    expectedCounts.set(key, (expectedCounts.get(key) ?? 0) + 1);
  }
  for (const [key, count] of expectedCounts) expect((after.get(key) ?? 0) - (before.get(key) ?? 0), key).toBe(count);
}

describe("OpenTelemetry traces under npm start (server.ts, the node:http front on)", () => {
  const receiver = new OtlpReceiver();
  let server: TestServer;
  beforeAll(async () => {
    const endpoint = await receiver.start();
    server = await startServer({ label: "tracing", env: { TRUSTED_PROXY: "1", ...TRACING_ENV(endpoint) } });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await receiver.stop();
  });

  it("exports an approval, a JWT-bearer exchange, an MCP 2026 tool call, an A2A skill and two pages in their callers' traces, with no secret", { timeout: 120_000 }, async () => {
    await checkFlowsExported(receiver, server.baseUrl, server.output);
  });

  it("names each request's log line, span and metric sample by the same route: twins, trailing slashes, unknown paths", { timeout: 90_000 }, async () => {
    await checkOneRoutePerRequest(receiver, server.baseUrl, server.output);
  });
});

describe("OpenTelemetry traces under a bare `next start` (instrumentation.ts register())", () => {
  const receiver = new OtlpReceiver();
  let bare: BareStart;
  beforeAll(async () => {
    const endpoint = await receiver.start();
    bare = await bareNextStart("1", "production", TRACING_ENV(endpoint));
    await untilAnswering(bare);
  }, 90_000);
  afterAll(async () => {
    await stopBare(bare);
    await receiver.stop();
  });

  it("exports an approval, a JWT-bearer exchange, an MCP 2026 tool call, an A2A skill and two pages in their callers' traces, with no secret", { timeout: 120_000 }, async () => {
    // BASE_URL names localhost (the approval form checks its Origin against it).
    await checkFlowsExported(receiver, bare.url.replace("127.0.0.1", "localhost"), bare.output);
  });

  it("names each request's log line, span and metric sample by the same route: twins, trailing slashes, unknown paths", { timeout: 90_000 }, async () => {
    await checkOneRoutePerRequest(receiver, bare.url.replace("127.0.0.1", "localhost"), bare.output);
  });
});

describe("OpenTelemetry traces with the default protocol (http/protobuf) to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", () => {
  const receiver = new OtlpReceiver();
  let server: TestServer;
  beforeAll(async () => {
    const endpoint = await receiver.start();
    server = await startServer({
      label: "tracing-protobuf",
      env: { TRUSTED_PROXY: "1", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/collector/spans`, OTEL_SERVICE_NAME: "agent-gate-tracing-test", OTEL_BSP_SCHEDULE_DELAY: "200" },
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await receiver.stop();
  });

  it("posts protobuf to the traces endpoint as given, the caller's trace and span ids in it", { timeout: 90_000 }, async () => {
    const caller = callerTrace();
    const answer = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": "198.18.7.7", traceparent: caller.traceparent },
      body: form({ grant_type: "urn:vendor:agent-auth:grant-type:claim", claim_token: "clm_unknown" }),
    });
    expect(answer.status).toBe(400);
    // OTLP protobuf holds trace and span ids as raw bytes (trace.proto: bytes trace_id = 1, bytes parent_span_id = 4).
    const traceId = Buffer.from(caller.traceId, "hex");
    const spanId = Buffer.from(caller.spanId, "hex");
    const deadline = Date.now() + 45_000;
    while (!receiver.binaryBodies.some((body) => body.includes(traceId) && body.includes(spanId))) {
      if (Date.now() > deadline) throw new Error(`no protobuf export with the caller's trace within 45 s: ${[...receiver.contentTypes].join("; ")}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([...receiver.contentTypes]).toEqual(["POST /collector/spans application/x-protobuf"]);
    const exported = Buffer.concat(receiver.binaryBodies).toString("latin1");
    expect(exported).toContain("POST /oauth2/token");
    expect(exported).toContain("agent-gate-tracing-test");
    expect(exported).not.toContain("clm_unknown");
  });
});

// ---------------------------------------------------------------- metrics (issue 50 item 5)

/** The latest cumulative value per instance (service.instance.id) of a data point of `metric` on `route`. */
function latestPerInstance(receiver: OtlpReceiver, metric: string, route: string, read: (point: OtlpDataPoint) => number): Map<string, number> {
  const latest = new Map<string, number>();
  for (const exported of receiver.metrics) {
    for (const resourceMetrics of exported.resourceMetrics ?? []) {
      const instance = resourceMetrics.resource?.attributes?.find((a) => a.key === "service.instance.id")?.value.stringValue ?? "";
      for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
        for (const found of scopeMetrics.metrics ?? []) {
          if (found.name !== metric) continue;
          for (const point of found.sum?.dataPoints ?? found.histogram?.dataPoints ?? []) {
            if (point.attributes?.find((a) => a.key === "http.route")?.value.stringValue === route) latest.set(instance, read(point));
          }
        }
      }
    }
  }
  return latest;
}

describe("OpenTelemetry metrics from a fleet of two instances (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, http/json)", () => {
  const receiver = new OtlpReceiver();
  const servers: TestServer[] = [];
  beforeAll(async () => {
    const endpoint = await receiver.start();
    const env = {
      TRUSTED_PROXY: "1",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${endpoint}/v1/metrics`,
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
      OTEL_METRIC_EXPORT_INTERVAL: "300",
      OTEL_SERVICE_NAME: "agent-gate-metrics-test",
    };
    servers.push(await startServer({ label: "metrics", env }), await startServer({ label: "metrics", env }));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await receiver.stop();
  });

  it("pushes each instance's request counts and latencies, which add up to the fleet's in the collector; no traces", { timeout: 90_000 }, async () => {
    const [first, second] = servers as [TestServer, TestServer];
    const ask = async (server: TestServer, n: number): Promise<void> => {
      for (let i = 0; i < n; i++) expect((await fetch(`${server.baseUrl}/ask?query=sign+in`, { headers: { "x-forwarded-for": `198.18.9.${i}` } })).status).toBe(200);
    };
    await ask(first, 3);
    await ask(second, 2);
    const deadline = Date.now() + 45_000;
    let counts = new Map<string, number>();
    while ([...counts.values()].reduce((sum, n) => sum + n, 0) < 5) {
      if (Date.now() > deadline) throw new Error(`no metrics of 5 /ask requests within 45 s: ${JSON.stringify([...counts])}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      counts = latestPerInstance(receiver, "agent_gate.http.requests", "/ask", (point) => Number(point.asInt ?? point.asDouble ?? 0));
    }
    // Two instances, each its own series: 3 and 2, 5 for the fleet.
    expect([...counts.values()].sort()).toEqual([2, 3]);
    const durations = latestPerInstance(receiver, "http.server.request.duration", "/ask", (point) => Number(point.count ?? 0));
    expect([...durations.values()].sort()).toEqual([2, 3]);
    expect(receiver.metricsPosts.every((type) => type === "application/json")).toBe(true);
    // Only the metrics endpoint is set: no spans are exported.
    expect(receiver.received).toEqual([]);
    // /metrics (one host's view) is unchanged.
    expect((await fetch(`${first.baseUrl}/metrics`)).status).toBe(404);
  });
});
