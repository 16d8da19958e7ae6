// Where the fleet's budgets and once-keys live (issue 50, lib/shared-state): SHARED_STATE forces a store, REDIS_URL
// names Redis (the variable Vercel's Redis integrations and most hosts set), SHARED_STATE_DEADLINE_MS bounds each
// call to it. Part of the one configuration (getConfig().sharedState), checked with it.
import { z } from "zod";
import { described } from "./describe";
import { malformedVariables, presentVariables } from "./variables";

export const SHARED_STATE_DEADLINE_MS_DEFAULT = 50;

export const sharedStateSchema = z.object({
  SHARED_STATE: described(z.enum(["memory", "postgres", "redis"], { message: "must be memory, postgres or redis" }).optional(), {
    group: "database",
    default: "`redis` when `REDIS_URL` is set, else `postgres` on PostgreSQL, else `memory`",
    description:
      "Where the budgets that are someone's quota and every replay check (Web Bot Auth nonces, DPoP proofs) are kept, for the whole fleet: `redis`, `postgres` (the deployment's database) or `memory` (this process only: for one instance, e.g. SQLite or a single PostgreSQL host). Refused as `memory` on Vercel.",
  }),
  REDIS_URL: described(
    z
      .string()
      .refine((value) => {
        try {
          const url = new URL(value);
          return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== "";
        } catch {
          return false;
        }
      }, "must be a redis:// or rediss:// (TLS) URL, e.g. rediss://default:password@host:6379")
      .optional(),
    {
      group: "database",
      show: "url",
      default: "none",
      deploy: "recommended for a fleet (Vercel: a Redis integration from its marketplace sets it)",
      description:
        "A Redis server (`redis://` or `rediss://` for TLS) that holds the fleet's budgets and replay checks; setting it makes `redis` the `SHARED_STATE` default. While it does not answer, each instance counts alone and `/readyz` says `shared_state: degraded`.",
    },
  ),
  SHARED_STATE_DEADLINE_MS: described(
    z
      .string()
      .regex(/^[0-9]+$/, "must be a whole number of milliseconds from 5 to 2000")
      .transform(Number)
      .refine((n) => n >= 5 && n <= 2000, "must be a whole number of milliseconds from 5 to 2000")
      .default(SHARED_STATE_DEADLINE_MS_DEFAULT),
    { group: "database", description: "Milliseconds one call to Redis may take before this instance answers from its fallback (5 to 2000)." },
  ),
});

export interface SharedStateConfig {
  store: "memory" | "postgres" | "redis";
  /** REDIS_URL (the redis store's server); undefined for the others. */
  redisUrl: string | undefined;
  deadlineMs: number;
}

type Variables = Readonly<Record<string, string | undefined>>;

/** The store these variables choose on this database (`SHARED_STATE` unset: Redis when named, else the database's). */
function chosenStore(raw: z.output<typeof sharedStateSchema>, databaseProvider: "sqlite" | "postgresql"): SharedStateConfig["store"] {
  return raw.SHARED_STATE ?? (raw.REDIS_URL !== undefined ? "redis" : databaseProvider === "postgresql" ? "postgres" : "memory");
}

/** Every problem of the shared-state variables on this database and platform (for the start checks). */
export function sharedStateProblems(env: Variables, databaseProvider: "sqlite" | "postgresql" | undefined, onVercel: boolean): { variable: string; detail: string }[] {
  const malformed = malformedVariables(sharedStateSchema, env);
  if (malformed.length > 0 || databaseProvider === undefined) return malformed;
  const raw = sharedStateSchema.parse(presentVariables(env, Object.keys(sharedStateSchema.shape)));
  const store = chosenStore(raw, databaseProvider);
  if (store === "redis" && raw.REDIS_URL === undefined)
    return [{ variable: "SHARED_STATE", detail: "is redis, but REDIS_URL is not set: set REDIS_URL to your Redis (redis:// or rediss://), or unset SHARED_STATE" }];
  if (store === "postgres" && databaseProvider !== "postgresql")
    return [
      {
        variable: "SHARED_STATE",
        detail:
          "is postgres, but DATABASE_URL is SQLite: the postgres store keeps the fleet's counts in the PostgreSQL database; unset SHARED_STATE (one instance counts in memory)",
      },
    ];
  // (On Vercel the memory default comes only with SQLite, which is refused by itself: only an explicit memory is named.)
  if (raw.SHARED_STATE === "memory" && onVercel)
    return [
      {
        variable: "SHARED_STATE",
        detail:
          "must not be memory on Vercel (VERCEL=1): each function instance would keep its own budgets and replay checks; unset SHARED_STATE (the PostgreSQL database holds them) or set REDIS_URL (Redis, e.g. from Vercel's marketplace)",
      },
    ];
  return [];
}

/** The shared-state settings (sharedStateProblems refuses bad ones first; here a bad one falls back to the default). */
export function sharedStateFrom(env: Variables, databaseProvider: "sqlite" | "postgresql"): SharedStateConfig {
  const parsed = sharedStateSchema.safeParse(presentVariables(env, Object.keys(sharedStateSchema.shape)));
  const raw = parsed.success ? parsed.data : { SHARED_STATE: undefined, REDIS_URL: undefined, SHARED_STATE_DEADLINE_MS: SHARED_STATE_DEADLINE_MS_DEFAULT };
  const store = chosenStore(raw, databaseProvider);
  return { store, redisUrl: store === "redis" ? raw.REDIS_URL : undefined, deadlineMs: raw.SHARED_STATE_DEADLINE_MS };
}
