// Every rate budget of the service in one table (docs/limits.md): what it counts, what it is keyed by,
// its default allowance and window, where it is kept, and the environment variable that overrides the
// allowance. Every budget that is someone's quota holds for the whole fleet: the anonymous read surfaces, the
// lookups and the exchange in lib/shared-state (memory, PostgreSQL or Redis: a Map lookup per message with the
// memory store), those that guard credentials or writes in the database table of ./index.ts. Only the probes
// budget, which protects one process, is counted per instance.
import { getConfig } from "@/lib/config";
import { parseAllowance } from "@/lib/config/allowance";
import { ALLOWANCE_PREFIX, unknownSettingProblems } from "@/lib/config/names";
import { NO_ADDRESS_KEY, VERIFIED_AGENT_KEY_PREFIX } from "@/lib/http/client-ip";
import { logger } from "@/lib/observability/log";

/**
 * What a budget's bucket is keyed by. caller: lib/http/client-ip.ts callerKey (IPv4 address, IPv6 /64); device: the
 * member and device of a signed device cookie (lib/auth/device-cookie.ts).
 */
export type BudgetKeyKind = "caller" | "e-mail" | "e-mail and caller" | "device" | "login_hint" | "assertion";

export interface BudgetDefinition {
  /** Bucket name prefix (database keys are "<name>:<subject>"). */
  readonly name: string;
  readonly key: BudgetKeyKind;
  /** Default allowance per window. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Overrides `limit` (a whole number from 1). */
  readonly env: string;
  /** shared: lib/shared-state (the fleet); database: ./index.ts's table (the fleet); instance: this process's memory. */
  readonly store: "shared" | "database" | "instance";
  /** One unit of the budget, for docs/configuration.md and docs/limits.md. */
  readonly counts: string;
}

export const BUDGETS = {
  mcp: { name: "mcp", key: "caller", limit: 600, windowSeconds: 60, env: "RATE_LIMIT_MCP_PER_MINUTE", store: "shared", counts: "JSON-RPC message POSTed to /mcp" },
  mcpDocs: {
    name: "mcp-docs",
    key: "caller",
    limit: 600,
    windowSeconds: 60,
    env: "RATE_LIMIT_MCP_DOCS_PER_MINUTE",
    store: "shared",
    counts: "JSON-RPC message POSTed to /mcp/docs",
  },
  a2a: { name: "a2a", key: "caller", limit: 600, windowSeconds: 60, env: "RATE_LIMIT_A2A_PER_MINUTE", store: "shared", counts: "JSON-RPC message POSTed to /a2a" },
  ask: { name: "ask", key: "caller", limit: 600, windowSeconds: 60, env: "RATE_LIMIT_ASK_PER_MINUTE", store: "shared", counts: "GET or HEAD of /ask" },
  // Not in the database table: the simulator answers even while the database is down (lib/sandbox/simulate.ts).
  simulate: {
    name: "simulate",
    key: "caller",
    limit: 600,
    windowSeconds: 60,
    env: "RATE_LIMIT_SIMULATE_PER_MINUTE",
    store: "shared",
    counts: "POST /api/v1/sandbox/simulate",
  },
  mapSearch: {
    name: "map-search",
    key: "caller",
    limit: 10,
    windowSeconds: 60,
    env: "RATE_LIMIT_MAP_SEARCH_PER_MINUTE",
    store: "shared",
    counts: 'page of /api/map/search (50 members; the /map page loads one when opened and one per "Show more members")',
  },
  probes: {
    name: "probes",
    key: "caller",
    limit: 600,
    windowSeconds: 60,
    env: "RATE_LIMIT_PROBES_PER_MINUTE",
    store: "instance",
    counts:
      "request to a path that skips admission (/healthz, /readyz, /metrics, /favicon.ico, /robots.txt, an unknown path under /_next/static/; not the build's own static files)",
  },
  lookups: {
    name: "lookups",
    key: "caller",
    limit: 60,
    windowSeconds: 60,
    env: "RATE_LIMIT_LOOKUPS_PER_MINUTE",
    store: "shared",
    counts: "lookup_member or verify_certificate call (MCP tools/call or A2A SendMessage/message/send), on top of the surface's budget",
  },
  tokenExchange: {
    name: "token-exchange",
    key: "assertion",
    limit: 30,
    windowSeconds: 60,
    env: "RATE_LIMIT_TOKEN_EXCHANGE_PER_MINUTE",
    store: "shared",
    counts: "JWT-bearer exchange at /oauth2/token, per identity assertion (keyed by its SHA-256)",
  },
  a2aMessageSend: {
    name: "a2a:message_send:ip",
    key: "caller",
    limit: 300,
    windowSeconds: 600,
    env: "RATE_LIMIT_A2A_MESSAGE_SEND_PER_10_MINUTES",
    store: "database",
    counts: "A2A SendMessage or message/send (each stores a task for 24 hours; GetTask, ListTasks, CancelTask, tasks/get and tasks/cancel are not counted)",
  },
  batch: { name: "batch:ip", key: "caller", limit: 10, windowSeconds: 60, env: "RATE_LIMIT_BATCH_PER_MINUTE", store: "database", counts: "POST /api/v1/batch (up to 10 items)" },
  identity: {
    name: "identity:ip",
    key: "caller",
    limit: 20,
    windowSeconds: 600,
    env: "RATE_LIMIT_IDENTITY_PER_10_MINUTES",
    store: "database",
    counts: "well-formed POST /agent/identity",
  },
  identityLoginHint: {
    name: "identity:login_hint",
    key: "login_hint",
    limit: 5,
    windowSeconds: 3600,
    env: "RATE_LIMIT_IDENTITY_LOGIN_HINT_PER_HOUR",
    store: "database",
    counts: "well-formed POST /agent/identity, per normalized e-mail (kept as a hash)",
  },
  registerAgent: {
    name: "register_agent:ip",
    key: "caller",
    limit: 5,
    windowSeconds: 3600,
    env: "RATE_LIMIT_REGISTER_AGENT_PER_HOUR",
    store: "database",
    counts: "register_agent call",
  },
  signInEmailCaller: {
    name: "signin-fail:email-caller",
    key: "e-mail and caller",
    limit: 10,
    windowSeconds: 900,
    env: "RATE_LIMIT_SIGN_IN_EMAIL_CALLER_PER_15_MINUTES",
    store: "database",
    counts:
      "password checked for one e-mail from one caller without a device cookie of that member (reserved before the check; a success gives it back); from the 5th on, the next attempt waits 2 s, doubling each time",
  },
  signInDevice: {
    name: "signin-fail:device",
    key: "device",
    limit: 10,
    windowSeconds: 900,
    env: "RATE_LIMIT_SIGN_IN_DEVICE_PER_15_MINUTES",
    store: "database",
    counts: "password checked for a member from a browser holding that member's device cookie (reserved before the check; a success gives it back); the same back-off",
  },
  signInAccount: {
    name: "signin-fail:account",
    key: "e-mail",
    limit: 20,
    windowSeconds: 3600,
    env: "RATE_LIMIT_SIGN_IN_ACCOUNT_PER_HOUR",
    store: "database",
    counts: "password checked for one e-mail from any caller without the member's device cookie (kept as a hash; a success gives it back)",
  },
  signInIp: {
    name: "signin-fail:ip",
    key: "caller",
    limit: 30,
    windowSeconds: 900,
    env: "RATE_LIMIT_SIGN_IN_IP_PER_15_MINUTES",
    store: "database",
    counts: "password checked from one caller without a device cookie (reserved before the check; a successful sign-in gives its reservation back)",
  },
} as const satisfies Record<string, BudgetDefinition>;

export type BudgetName = keyof typeof BUDGETS;

/** A budget as it applies: the table's definition with the allowance the environment may override. */
export interface RateLimitRule {
  /** Bucket name, e.g. "identity:ip". */
  name: string;
  limit: number;
  windowSeconds: number;
}

/** The allowance of the shared NO_ADDRESS_KEY bucket: a tenth of the rule's, at least one. */
export function noAddressLimit(limit: number): number {
  return Math.max(1, Math.floor(limit / 10));
}

/** The limit that applies to `subject`: the no-address bucket is strict. */
export function limitFor(rule: RateLimitRule, subject: string): number {
  if (subject === NO_ADDRESS_KEY) return noAddressLimit(rule.limit);
  // Only a caller-keyed budget is ever charged under a verified agent's key (lib/agent-identity publicCallerKey).
  if (subject.startsWith(VERIFIED_AGENT_KEY_PREFIX)) return rule.limit * getConfig().verifiedAgentAllowanceFactor;
  return rule.limit;
}

/** The variables of the table: the only RATE_LIMIT_* names that are settings. */
export const BUDGET_VARIABLES: ReadonlySet<string> = new Set(Object.values(BUDGETS).map((budget) => budget.env));

/**
 * For the start checks: one problem per RATE_LIMIT_* variable the table does not name (with the nearest name it does),
 * and per variable of the table set to something other than a whole number from 1.
 */
export function budgetEnvironmentProblems(env: Readonly<Record<string, string | undefined>>): { variable: string; detail: string }[] {
  const problems = unknownSettingProblems(env, BUDGET_VARIABLES, [ALLOWANCE_PREFIX]);
  for (const budget of Object.values(BUDGETS)) {
    if (parseAllowance(env[budget.env]) === "invalid")
      problems.push({ variable: budget.env, detail: `must be a whole number from 1 (the ${budget.name} allowance per ${budget.windowSeconds} seconds)` });
  }
  return problems;
}

const warned = new Set<string>();

/** A budget's allowance: the configuration's when set (an invalid value keeps the default, logged once). */
function allowanceOf(budget: BudgetDefinition): number {
  const override = getConfig().rateLimitAllowances[budget.env];
  if (override === "invalid" && !warned.has(budget.env)) {
    warned.add(budget.env);
    logger().warn({ type: "config", variable: budget.env }, `${budget.env} must be a whole number from 1; the default ${budget.limit} applies`);
  }
  return typeof override === "number" ? override : budget.limit;
}

/**
 * The rule of a budget. Its limit is read from the configuration when used: modules hold rules in constants, and
 * loading them must read no configuration before the start has checked it (a bad one is then reported in full).
 */
export function budgetRule(name: BudgetName): RateLimitRule {
  const budget: BudgetDefinition = BUDGETS[name];
  return {
    name: budget.name,
    get limit(): number {
      return allowanceOf(budget);
    },
    windowSeconds: budget.windowSeconds,
  };
}
