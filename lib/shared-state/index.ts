// The fleet's shared state (issue 50): the budgets that are anyone's quota and every replay check hold for the whole
// deployment, however many instances serve it. Three stores (getConfig().sharedState, lib/config/shared-state.ts):
//
//   memory    one process (SQLite's embedded default; SHARED_STATE=memory on a single-instance PostgreSQL host)
//   postgres  the deployment's database (the default on PostgreSQL without REDIS_URL): ./postgres.ts
//   redis     Redis (the default whenever REDIS_URL is set): ./redis.ts
//
// Callers:
// - `chargeCounters(charges)`: spends every charge or none (lib/rate-limit's budgets). The memory store answers
//   synchronously, so with it a request takes exactly the path and the turns it took before this module existed.
// - `acceptOnce(scope, key, untilEpochSeconds)`: the general replay check. True the first time `key` is seen in
//   `scope` before that time, false for every later sight, fleet-wide. Web Bot Auth nonces use it
//   (lib/agent-identity); so does any later replay cache (a DPoP proof's `jti`: scope "dpop-jti", key the jti
//   (with the key's thumbprint), until the proof's iat plus its accepted age).
// - `acceptOnceAndCharge(claim, charges)`: both, in one round trip: the once-key first, then, only when it was new,
//   the charges.
// Keys are the callers' own strings; a long or unusual one is stored as a SHA-256 (storedKey).
//
// What stays per process is not here: admission shares, the probes budget, caches of public data.
import { createHash } from "node:crypto";
import { offSlot } from "@/lib/admission/slot";
import { systemClock, type Clock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { processSingleton } from "@/lib/registry";
import { MemoryStore } from "./memory";
import { acceptOnceInDatabase, PostgresStore } from "./postgres";
import { RedisStore } from "./redis";
import type { ChargeOutcome, CounterCharge, MaybePromise, OnceAndChargeOutcome, OnceClaim, SharedStateCondition, SharedStateStore, SharedStateStoreName } from "./types";

export type { ChargeOutcome, ChargeRefusal, CounterCharge, MaybePromise, OnceAndChargeOutcome, OnceClaim, SharedStateCondition, SharedStateStoreName } from "./types";

/** `then(value)`, at once when `value` is there already (the memory store), else when it settles. */
export function mapMaybe<T, R>(value: MaybePromise<T>, then: (settled: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/**
 * Keys stored as they are: printable ASCII, at most 128 characters (addresses, origins). Any other key is stored as the
 * SHA-256 of its JSON text, which spells every UTF-16 unit (a lone surrogate too) apart: rows and Redis keys stay small
 * and distinct whatever a caller sent (UTF-8 would turn two different lone surrogates into one U+FFFD).
 */
const PLAIN_KEY = /^[\x20-\x7e]{0,128}$/;

function storedKey(key: string): string {
  return PLAIN_KEY.test(key) ? key : `sha256:${createHash("sha256").update(JSON.stringify(key)).digest("base64url")}`;
}

function storedCharges(charges: readonly CounterCharge[]): readonly CounterCharge[] {
  return charges.every((charge) => PLAIN_KEY.test(charge.key)) ? charges : charges.map((charge) => ({ ...charge, key: storedKey(charge.key) }));
}

function storedClaim(claim: OnceClaim): OnceClaim {
  return PLAIN_KEY.test(claim.key) ? claim : { ...claim, key: storedKey(claim.key) };
}

/** The store the configuration names (made once per process). */
function storeFor(clock: Clock): SharedStateStore {
  const { store, redisUrl, deadlineMs } = getConfig().sharedState;
  if (store === "postgres") return new PostgresStore(clock);
  if (store === "redis" && redisUrl !== undefined) {
    const onPostgres = getConfig().databaseProvider === "postgresql";
    const memoryOnce = new MemoryStore();
    return new RedisStore({
      url: redisUrl,
      deadlineMs,
      fallbackOnce: onPostgres ? acceptOnceInDatabase : (claim, nowMs) => memoryOnce.acceptOnce(claim, nowMs),
      fallbackOnceName: onPostgres ? "PostgreSQL" : "memory",
      now: () => clock.now().getTime(),
    });
  }
  return new MemoryStore();
}

// One per process (lib/registry): the front's copy of this module and Next's count in the same store.
const shared = processSingleton<{ store?: SharedStateStore }>("shared-state", () => ({}));

/** The process's store. */
export function sharedStateStore(): SharedStateStore {
  shared.store ??= storeFor(systemClock);
  return shared.store;
}

/**
 * A remote store's answer, awaited with the request's admission slot given back (lib/admission/slot.ts): the slot runs
 * other work while this request waits on the network. The memory store's answers are there at once.
 */
function awaited<T>(answer: MaybePromise<T>): MaybePromise<T> {
  return answer instanceof Promise ? offSlot(answer) : answer;
}

/** Spends every charge or none; null when counted, else how long to wait. Synchronous with the memory store. */
export function chargeCounters(charges: readonly CounterCharge[], clock: Clock = systemClock): MaybePromise<ChargeOutcome> {
  return awaited(sharedStateStore().charge(storedCharges(charges), clock.now().getTime()));
}

/**
 * The replay check: true the first time `key` is seen in `scope` before `untilEpochSeconds`, false every later time
 * until then, on any instance of the deployment. Keep `until` at the end of the claim's own validity (a nonce's
 * signature window, a DPoP proof's accepted age) plus the clock skew you forgive: after it, the claim's expiry refuses.
 */
export async function acceptOnce(scope: string, key: string, untilEpochSeconds: number, clock: Clock = systemClock): Promise<boolean> {
  return awaited(sharedStateStore().acceptOnce(storedClaim({ scope, key, untilEpochSeconds }), clock.now().getTime()));
}

/** acceptOnce, then (only when the key was new) chargeCounters, in one round trip to the store. */
export async function acceptOnceAndCharge(claim: OnceClaim, charges: readonly CounterCharge[], clock: Clock = systemClock): Promise<OnceAndChargeOutcome> {
  return awaited(sharedStateStore().acceptOnceAndCharge(storedClaim(claim), storedCharges(charges), clock.now().getTime()));
}

/** What /readyz reports: the store and whether it answers (degraded: this instance answers from its fallback). */
export function sharedStateReport(): { store: SharedStateStoreName; condition: SharedStateCondition } {
  const store = sharedStateStore();
  return { store: store.name, condition: store.condition() };
}

/** Connects the store at start (bounded; a store that does not answer starts degraded). */
export function startSharedState(): Promise<void> {
  return sharedStateStore().start();
}

/** Sends what is pending and closes the store's connections (shutdown). */
export async function stopSharedState(): Promise<void> {
  await shared.store?.stop();
}

/** Forgets the process's store (tests that change the configuration between cases). */
export function resetSharedState(): void {
  const old = shared.store;
  shared.store = undefined;
  void old?.stop();
}
