// The budgets of the anonymous surfaces (here with the memory store of lib/shared-state, the default on SQLite:
// answered synchronously), the one table of budgets, and the JSON-RPC per-POST rules.
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "@/lib/clock";
import { NO_ADDRESS_KEY } from "@/lib/http/client-ip";
import { BUDGETS, budgetEnvironmentProblems, budgetRule, type BudgetName, type RateLimitRule } from "@/lib/rate-limit/budgets";
import { batchRefusal, chargeJsonRpcPost, mcpToolBudget, MAX_MESSAGES_PER_POST } from "@/lib/rate-limit/json-rpc";
import { chargeBudgets, chargeInstanceBudget, resetInstanceBudgets } from "@/lib/rate-limit/charge";
import { resetSharedState, type MaybePromise } from "@/lib/shared-state";
import { WindowCounter } from "@/lib/shared-state/memory";
import { toolBudgetOf } from "@/lib/tools";
import { useTestConfig } from "../support/config";

const rule = { name: "test", limit: 3, windowSeconds: 60 };
const caller = (key: string) => ({ key, addressKey: key });

/** The memory store's answer, which is never a promise. */
function now<T>(value: MaybePromise<T>): T {
  if (value instanceof Promise) throw new Error("the memory store answered with a promise");
  return value;
}
const rpc = (method: string, params: unknown, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });

/** The budget's rule under a configuration of these variables. */
function ruleWith(name: BudgetName, variables: Record<string, string> = {}): RateLimitRule {
  useTestConfig(variables);
  return budgetRule(name);
}

afterEach(() => {
  resetSharedState();
  resetInstanceBudgets();
  useTestConfig();
});

describe("the budget table", () => {
  it("names every budget once, each with its own variable", () => {
    const envs = Object.values(BUDGETS).map((b) => b.env);
    expect(new Set(envs).size).toBe(envs.length);
    const names = Object.values(BUDGETS).map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
    for (const budget of Object.values(BUDGETS)) expect(budget.env).toMatch(/^RATE_LIMIT_[A-Z0-9_]+_PER_(MINUTE|HOUR|10_MINUTES|15_MINUTES)$/);
  });

  it("keeps the defaults of the issue and of CONTRACT.md", () => {
    expect(ruleWith("mcp")).toEqual({ name: "mcp", limit: 600, windowSeconds: 60 });
    expect(ruleWith("lookups").limit).toBe(60);
    expect(ruleWith("signInEmailCaller")).toEqual({ name: "signin-fail:email-caller", limit: 10, windowSeconds: 900 });
    expect(ruleWith("signInDevice")).toEqual({ name: "signin-fail:device", limit: 10, windowSeconds: 900 });
    expect(ruleWith("signInAccount")).toEqual({ name: "signin-fail:account", limit: 20, windowSeconds: 3600 });
    expect(ruleWith("signInAccount", { RATE_LIMIT_SIGN_IN_ACCOUNT_PER_HOUR: "50" }).limit).toBe(50);
    expect(ruleWith("signInIp").limit).toBe(30);
    expect(ruleWith("batch")).toEqual({ name: "batch:ip", limit: 10, windowSeconds: 60 });
    expect(ruleWith("identity")).toEqual({ name: "identity:ip", limit: 20, windowSeconds: 600 });
    expect(ruleWith("tokenExchange").limit).toBe(30);
    expect(ruleWith("simulate")).toEqual({ name: "simulate", limit: 600, windowSeconds: 60 });
  });

  it("takes an allowance from the configuration; an invalid one keeps the default and is reported", () => {
    expect(ruleWith("mcp", { RATE_LIMIT_MCP_PER_MINUTE: "5" }).limit).toBe(5);
    expect(ruleWith("mcp", { RATE_LIMIT_MCP_PER_MINUTE: "0" }).limit).toBe(600);
    expect(ruleWith("mcp", { RATE_LIMIT_MCP_PER_MINUTE: "" }).limit).toBe(600);
    expect(budgetEnvironmentProblems({ RATE_LIMIT_MCP_PER_MINUTE: "5" })).toEqual([]);
    const problems = budgetEnvironmentProblems({ RATE_LIMIT_MCP_PER_MINUTE: "0", RATE_LIMIT_ASK_PER_MINUTE: "lots", RATE_LIMIT_LOOKUPS_PER_MINUTE: "-1" });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toEqual({ variable: "RATE_LIMIT_MCP_PER_MINUTE", detail: "must be a whole number from 1 (the mcp allowance per 60 seconds)" });
  });
});

describe("in-memory fixed windows", () => {
  it("allows up to the limit per window, then refuses with the seconds left, then starts a new window", () => {
    const counter = new WindowCounter(rule.windowSeconds);
    const t0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 3; i++) {
      expect(counter.wait("k", 1, rule.limit, t0)).toBe(0);
      counter.spend("k", 1, t0);
    }
    expect(counter.wait("k", 1, rule.limit, t0)).toBe(60);
    expect(counter.wait("k", 1, rule.limit, t0 + 45_500)).toBe(15);
    expect(counter.wait("other", 1, rule.limit, t0)).toBe(0);
    expect(counter.wait("k", 1, rule.limit, t0 + 60_000)).toBe(0);
  });

  it("counts a whole POST: a cost over what is left is refused and spends nothing", () => {
    const counter = new WindowCounter(rule.windowSeconds);
    counter.spend("k", 2, 0);
    expect(counter.wait("k", 2, rule.limit, 0)).toBeGreaterThan(0);
    expect(counter.wait("k", 1, rule.limit, 0)).toBe(0);
  });

  it("gives the no-address bucket a tenth of the allowance", () => {
    useTestConfig({ RATE_LIMIT_MCP_PER_MINUTE: "20" });
    const clock = new ManualClock();
    expect(chargeBudgets([{ budget: "mcp", key: NO_ADDRESS_KEY, cost: 2 }], clock)).toBeNull();
    expect(chargeBudgets([{ budget: "mcp", key: NO_ADDRESS_KEY, cost: 1 }], clock)).toEqual({ retryAfterSeconds: 60 });
    expect(chargeBudgets([{ budget: "mcp", key: "203.0.113.1", cost: 18 }], clock)).toBeNull();
  });

  it("stays bounded: expired windows are pruned and the oldest dropped when full", () => {
    const counter = new WindowCounter(rule.windowSeconds, 100);
    for (let i = 0; i < 100; i++) counter.spend(`a${i}`, 1, 0);
    expect(counter.size).toBe(100);
    // A minute later every earlier window has ended: one new key prunes them all.
    counter.spend("fresh", 1, 60_000);
    expect(counter.size).toBe(1);
    for (let i = 0; i < 250; i++) counter.spend(`b${i}`, 1, 60_000);
    expect(counter.size).toBe(100);
  });

  it("charges several budgets all or nothing", () => {
    useTestConfig({ RATE_LIMIT_MCP_PER_MINUTE: "10", RATE_LIMIT_LOOKUPS_PER_MINUTE: "2" });
    const clock = new ManualClock();
    expect(
      chargeBudgets(
        [
          { budget: "mcp", key: "c", cost: 1 },
          { budget: "lookups", key: "c", cost: 2 },
        ],
        clock,
      ),
    ).toBeNull();
    const refused = chargeBudgets(
      [
        { budget: "mcp", key: "c", cost: 1 },
        { budget: "lookups", key: "c", cost: 1 },
      ],
      clock,
    );
    expect(refused).toEqual({ retryAfterSeconds: 60 });
    // The refused charge spent nothing of the mcp budget: 9 more messages pass, the 10th... is the 11th.
    expect(chargeBudgets([{ budget: "mcp", key: "c", cost: 9 }], clock)).toBeNull();
    expect(chargeBudgets([{ budget: "mcp", key: "c", cost: 1 }], clock)).not.toBeNull();
    clock.advance(60);
    expect(chargeBudgets([{ budget: "lookups", key: "c", cost: 2 }], clock)).toBeNull();
  });

  it("counts the probes budget in this process's memory, apart from the fleet's store", () => {
    useTestConfig({ RATE_LIMIT_PROBES_PER_MINUTE: "2" });
    const clock = new ManualClock();
    expect(chargeInstanceBudget("probes", "c", clock)).toBe(true);
    expect(chargeInstanceBudget("probes", "c", clock)).toBe(true);
    expect(chargeInstanceBudget("probes", "c", clock)).toBe(false);
    resetSharedState();
    expect(chargeInstanceBudget("probes", "c", clock)).toBe(false);
    clock.advance(60);
    expect(chargeInstanceBudget("probes", "c", clock)).toBe(true);
  });
});

describe("JSON-RPC POSTs: the message cap and per-message budgets", () => {
  it("refuses an array of more than 10 messages with one -32600, and MCP arrays from 2025-06-18 on", async () => {
    const eleven = Array.from({ length: MAX_MESSAGES_PER_POST + 1 }, (_, i) => rpc("tools/list", {}, i));
    const refused = batchRefusal(eleven, null);
    expect(refused?.status).toBe(400);
    const body = JSON.parse(refused!.body!) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(-32600);
    expect(batchRefusal(eleven.slice(0, 10), null)).toBeNull();
    expect(batchRefusal(eleven.slice(0, 10), "2025-03-26")).toBeNull();
    expect(batchRefusal(eleven.slice(0, 2), "2025-06-18")?.status).toBe(400);
    expect(batchRefusal(eleven.slice(0, 2), "2025-11-25")?.status).toBe(400);
    expect(batchRefusal([rpc("initialize", { protocolVersion: "2025-06-18" })], null)?.status).toBe(400);
    expect(batchRefusal(rpc("tools/list", {}), "2025-06-18")).toBeNull();
    // A2A (no revision header at all): only the cap applies here; its parser refuses any array itself.
    expect(batchRefusal(eleven.slice(0, 2))).toBeNull();
  });

  it("counts every message of a POST and every lookup call, and answers -32010 with Retry-After", async () => {
    useTestConfig({ RATE_LIMIT_MCP_PER_MINUTE: "5", RATE_LIMIT_LOOKUPS_PER_MINUTE: "2" });
    const clock = new ManualClock();
    const extra = mcpToolBudget(toolBudgetOf);
    const lookup = (id: number) => rpc("tools/call", { name: "lookup_member", arguments: { name_or_slug: "ada" } }, id);
    expect(chargeJsonRpcPost("mcp", caller("c"), [rpc("tools/list", {}, 1), rpc("tools/list", {}, 2), rpc("tools/list", {}, 3)], extra, clock)).toBeNull();
    // Two more messages fit the mcp budget, but three lookups do not fit the lookups budget: refused whole.
    const refused = chargeJsonRpcPost("mcp", caller("c"), [lookup(4), lookup(5)], extra, clock);
    expect(refused).toBeNull();
    const over = now(chargeJsonRpcPost("mcp", caller("c"), lookup(6), extra, clock));
    expect(over?.status).toBe(429);
    expect(over?.headers["retry-after"]).toBe("60");
    expect(JSON.parse(over!.body!)).toEqual({ jsonrpc: "2.0", id: 6, error: { code: -32010, message: "Rate limited: retry after 60 seconds.", data: { retry_after: 60 } } });
    // The mcp budget is spent too: 5 messages.
    const spent = now(chargeJsonRpcPost("mcp", caller("c"), rpc("tools/list", {}, "x"), extra, clock));
    expect((JSON.parse(spent!.body!) as { id: unknown }).id).toBe("x");
  });
});
