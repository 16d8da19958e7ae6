// Metrics (issue #17 item 3): one prom-client registry per process with the default process metrics
// (event-loop lag, heap, CPU) and the service's own counters. Recording is an in-memory increment;
// /metrics (lib/operator/metrics.ts) renders the registry.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { getConfig } from "@/lib/config";
import { droppedLogLines } from "@/lib/observability/log";
import { processSingleton } from "@/lib/registry";
import { recordRequestMetric } from "@/lib/tracing/metrics";

type RequestLabel = "method" | "route" | "status";

/** Upper bounds of the request-duration buckets, in seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

interface ServiceMetrics {
  registry: Registry;
  /** Whether the default process collectors run (event-loop lag, heap, GC…). */
  processCollectors: boolean;
  requests: Counter<RequestLabel>;
  durations: Histogram<RequestLabel>;
  grants: Counter<"grant_type" | "outcome">;
  decisions: Counter<"decision">;
  rateLimitRefusals: Counter<"rule">;
  databaseErrors: Counter<"kind">;
  shed: Counter<"class" | "reason">;
  sharedStateDegraded: Gauge<"store">;
  sharedStateFallbacks: Counter<"store" | "operation">;
}

function build(): ServiceMetrics {
  const registry = new Registry();
  // The process collectors (a GC observer, an event-loop delay monitor) run only where they can be read: from
  // the start with METRICS_TOKEN set, else from the first authorised scrape (none can happen without it).
  const registers = [registry];
  const metrics: ServiceMetrics = {
    registry,
    processCollectors: false,
    requests: new Counter({
      name: "agent_gate_http_requests_total",
      help: "HTTP requests answered, by method, route template and status.",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    durations: new Histogram({
      name: "agent_gate_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route template and status.",
      labelNames: ["method", "route", "status"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    grants: new Counter({
      name: "agent_gate_token_grants_total",
      help: "Token endpoint grants by grant type and outcome (approved, authorization_pending, slow_down, access_denied, expired_token, invalid_grant, issued…).",
      labelNames: ["grant_type", "outcome"],
      registers,
    }),
    decisions: new Counter({
      name: "agent_gate_delegation_decisions_total",
      help: "Members' decisions on claim attempts: approved or denied.",
      labelNames: ["decision"],
      registers,
    }),
    rateLimitRefusals: new Counter({ name: "agent_gate_rate_limit_refusals_total", help: "Requests refused by a rate-limit rule.", labelNames: ["rule"], registers }),
    databaseErrors: new Counter({
      name: "agent_gate_database_errors_total",
      help: "Database failures seen by request handling: unavailable (unreachable) or other.",
      labelNames: ["kind"],
      registers,
    }),
    shed: new Counter({
      name: "agent_gate_requests_shed_total",
      help: "Requests refused with 503 before running, by class of work (account, token, pages, public, general) and reason (queue_full, queue_timeout, heap).",
      labelNames: ["class", "reason"],
      registers,
    }),
    sharedStateDegraded: new Gauge({
      name: "agent_gate_shared_state_degraded",
      help: "1 while the shared store (lib/shared-state: postgres or redis) does not answer in time and this instance answers from its fallback, else 0.",
      labelNames: ["store"],
      registers,
    }),
    sharedStateFallbacks: new Counter({
      name: "agent_gate_shared_state_fallbacks_total",
      help: "Shared-state operations answered by this instance's fallback (counters in memory; once-keys in PostgreSQL, or memory with SQLite) because the store did not answer in time.",
      labelNames: ["store", "operation"],
      registers,
    }),
  };
  new Counter({
    name: "agent_gate_log_lines_dropped_total",
    help: "Log lines dropped because the log reader (stdout) did not take them in time; each gap is also logged once.",
    registers,
    // The log keeps the count; a scrape reads it, so dropping a line costs no metric work on the saturated path.
    collect() {
      this.reset();
      this.inc(droppedLogLines());
    },
  });
  if (metricsTokenSet()) startProcessCollectors(metrics);
  return metrics;
}

/** Starts the process collectors once per registry (the flag lives on the shared metrics, not in a module: see below). */
export function startProcessCollectors(metrics: ServiceMetrics): void {
  if (metrics.processCollectors) return;
  metrics.processCollectors = true;
  collectDefaultMetrics({ register: metrics.registry, prefix: "agent_gate_" });
}

function metricsTokenSet(): boolean {
  try {
    return getConfig().operations.metricsToken !== undefined;
  } catch {
    // A malformed setting is reported by the start-up preflight; recording must not throw on a request's path.
    return false;
  }
}

// In lib/registry: Next bundles route modules (and the server entry) separately; all count into one registry.
const shared = processSingleton<{ agentGateMetrics?: ServiceMetrics }>("operations.metrics", () => ({}));

export function serviceMetrics(): ServiceMetrics {
  shared.agentGateMetrics ??= build();
  return shared.agentGateMetrics;
}

/** Rate-limit rule names carry no subject, but cap label values anyway (a label is a time series). */
const label = (value: string): string => value.slice(0, 64);

/** One request's sample: its count and its duration. */
export function recordRequest(method: string, route: string, status: number, seconds: number): void {
  const { requests, durations } = serviceMetrics();
  const labels = { method: label(method), route: label(route), status: String(status) };
  requests.inc(labels);
  durations.observe(labels, seconds);
  // Pushed over OTLP too when an endpoint is configured (one boolean check otherwise).
  recordRequestMetric(labels.method, labels.route, status, seconds);
}

export function recordTokenGrant(grantType: "claim" | "jwt-bearer", outcome: string): void {
  serviceMetrics().grants.inc({ grant_type: grantType, outcome: label(outcome) });
}

export function recordDecision(decision: "approved" | "denied"): void {
  serviceMetrics().decisions.inc({ decision });
}

export function recordRateLimitRefusal(rule: string): void {
  serviceMetrics().rateLimitRefusals.inc({ rule: label(rule) });
}

export function recordDatabaseError(kind: "unavailable" | "other"): void {
  serviceMetrics().databaseErrors.inc({ kind });
}

/** Counts a request that admission control refused (lib/admission). */
export function recordShed(workClass: string, reason: string): void {
  serviceMetrics().shed.inc({ class: label(workClass), reason: label(reason) });
}

/** The shared store's condition (lib/shared-state): set at each change of state. */
export function recordSharedStateDegraded(store: string, degraded: boolean): void {
  serviceMetrics().sharedStateDegraded.set({ store: label(store) }, degraded ? 1 : 0);
}

/** One shared-state operation answered by the fallback (operation: charge, once). */
export function recordSharedStateFallback(store: string, operation: "charge" | "once"): void {
  serviceMetrics().sharedStateFallbacks.inc({ store: label(store), operation });
}

/** Counts a failure a request handler did not expect when it came from the database (a driver's code). */
export function recordHandlerFailure(error: unknown): void {
  if (isDatabaseUnavailable(error)) return recordDatabaseError("unavailable");
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  // SQLite's SQLITE_* codes, PostgreSQL's five-character SQLSTATEs.
  if (typeof code === "string" && (code.startsWith("SQLITE_") || /^[0-9A-Z]{5}$/.test(code))) recordDatabaseError("other");
}
