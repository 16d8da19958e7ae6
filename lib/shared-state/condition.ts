// A store's condition, ok or degraded, and what a change of it tells the operator: one warn line per change (never
// one per request) and the gauge agent_gate_shared_state_degraded. /readyz reads it (lib/operator/health.ts) and
// stays ready: a degraded store means this instance counts alone for a while, not that it cannot serve.
import { logger } from "@/lib/observability/log";
import { recordSharedStateDegraded } from "@/lib/observability/metrics";
import type { SharedStateCondition, SharedStateStoreName } from "./types";

export class ConditionTracker {
  private current: SharedStateCondition = "ok";

  constructor(
    private readonly store: SharedStateStoreName,
    /** What takes over while degraded, for the warn line ("memory counts; once-keys in PostgreSQL"). */
    private readonly fallback: string,
  ) {}

  get condition(): SharedStateCondition {
    return this.current;
  }

  /** Enters the degraded condition (a no-op while in it): one warn line, the gauge at 1. */
  degrade(reason: string): void {
    if (this.current === "degraded") return;
    this.current = "degraded";
    recordSharedStateDegraded(this.store, true);
    logger().warn(
      { type: "shared_state", store: this.store, condition: "degraded", reason },
      `the shared store (${this.store}) does not answer (${reason}): this instance answers from ${this.fallback} until it is back; budgets hold per instance meanwhile`,
    );
  }

  /** Leaves the degraded condition (a no-op while ok): one warn line, the gauge at 0. */
  recover(): void {
    if (this.current === "ok") return;
    this.current = "ok";
    recordSharedStateDegraded(this.store, false);
    logger().warn(
      { type: "shared_state", store: this.store, condition: "ok" },
      `the shared store (${this.store}) answers again: budgets and once-keys hold for the whole fleet again`,
    );
  }
}
