// What a start checks before it serves anything (issue 19, docs/deploying.md): the configuration (every bad
// variable at once, lib/config/schema.ts) and the database's migrations. The embedded SQLite default migrates
// itself; any other database must be migrated by its operator (`npm run db:migrate`), so a start never
// changes a shared database behind the back of whoever deploys it.
import { configProblemLine, DEFAULT_DATABASE_URL, rawEnvSchema, type AppConfig, type ConfigProblem } from "@/lib/config/schema";
import { checkConfig } from "@/lib/config";
import { startLogger } from "@/lib/observability/log";
import { budgetEnvironmentProblems } from "@/lib/rate-limit";
import { applyMigrations, migrationState, type MigrationState } from "./migrations";

export interface StartProblem extends ConfigProblem {
  kind: "configuration" | "database";
}

export interface PreflightOptions {
  /** The variables to check (tests); default: the environment, as lib/config reads it. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where prisma/ and node_modules/ are, and what a relative `file:` path is relative to. */
  projectDir?: string;
  /** Applies the migrations (tests inject a counting one); default: `prisma migrate deploy`. */
  migrate?: (databaseUrl: string, projectDir: string) => Promise<void>;
  /** True: change nothing (`npm run config`): the embedded default's pending migrations are news, not applied. */
  readOnly?: boolean;
  /** One line of news that is not a problem (the default database was migrated, the database could not be asked); default: a `start` log line. */
  log?: (line: string) => void;
  /**
   * False when this process was not started by server.ts (a bare `next start`): nothing stamps socket
   * addresses then (lib/http/client-ip.ts), so a production start needs TRUSTED_PROXY=vercel or a hop count.
   */
  serverEntry?: boolean;
}

export interface PreflightResult {
  /** Set when there is no problem. */
  config: AppConfig | undefined;
  problems: StartProblem[];
}

/** The line printed for a problem. */
export function startProblemLine(problem: StartProblem): string {
  return problem.kind === "configuration" ? configProblemLine(problem) : `Database not ready: ${problem.variable} ${problem.detail}`;
}

/** True for the embedded SQLite database of a fresh clone: DATABASE_URL unset or the default `file:./data/app.db`. */
export function isDefaultDatabase(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.DATABASE_URL;
  return value === undefined || value === "" || value === DEFAULT_DATABASE_URL;
}

const MIGRATE_HINT = "run `npm run db:migrate` with this DATABASE_URL, then start again";

function describeBehind(state: Extract<MigrationState, { kind: "behind" }>): string {
  const parts: string[] = [];
  if (state.pending.length > 0) parts.push(`${state.pending.length} migration${state.pending.length === 1 ? "" : "s"} not applied (${state.pending.join(", ")})`);
  if (state.failed.length > 0) parts.push(`migration ${state.failed.join(", ")} failed half-way (see \`npx prisma migrate resolve\`)`);
  return parts.join("; ");
}

/**
 * A production start without server.ts under TRUSTED_PROXY=none: no socket address is known (the peer header
 * is then the client's own, and ignored), so every caller would share the one no-address bucket. Refused.
 */
function withoutServerEntryProblem(env: Readonly<Record<string, string | undefined>>, config: AppConfig | undefined): StartProblem | undefined {
  // A configuration with problems is refused anyway; this one is then reported once they are fixed.
  if (env.NODE_ENV !== "production" || config?.trustedProxy.kind !== "none") return undefined;
  return {
    kind: "configuration",
    variable: "TRUSTED_PROXY",
    detail:
      "is none, but this process was started without server.ts (a bare `next start`), which cannot see socket addresses: start with `npm start`, or set TRUSTED_PROXY to the number of proxies in front that append X-Forwarded-For (vercel on Vercel)",
  };
}

/** Every reason not to start, all at once (never throws); the default SQLite database is migrated on the way. */
export async function preflight(options: PreflightOptions = {}): Promise<PreflightResult> {
  const projectDir = options.projectDir ?? process.cwd();
  const migrate = options.migrate ?? applyMigrations;
  const log = options.log ?? ((line: string) => startLogger().info({ type: "start" }, line));
  // Every variable (the operator settings included) and the budgets' allowances: a malformed one is refused, not
  // silently replaced by its default. `env`: the variables as checked (blank ones unset).
  const checked = checkConfig(options.env);
  const env = checked.variables;
  const problems: StartProblem[] = checked.ok ? [] : checked.problems.map((p) => ({ ...p, kind: "configuration" as const }));
  for (const problem of budgetEnvironmentProblems(env)) problems.push({ ...problem, kind: "configuration" });
  const entryProblem = options.serverEntry === false ? withoutServerEntryProblem(env, checked.ok ? checked.config : undefined) : undefined;
  if (entryProblem) problems.push(entryProblem);

  // The database is checked even when the configuration has problems (all of them at once), unless its URL
  // is itself refused; nothing is migrated on a start that is refused anyway.
  const databaseUrl = rawEnvSchema.shape.DATABASE_URL.safeParse(env.DATABASE_URL === "" ? undefined : env.DATABASE_URL);
  if (databaseUrl.success && !problems.some((p) => p.variable === "DATABASE_URL")) {
    const url = databaseUrl.data;
    let state = await migrationState(url, projectDir);
    const selfMigrating = isDefaultDatabase(env) && (state.kind === "empty" || state.kind === "behind");
    // The default migrates itself on a start that goes ahead only; on a refused one, once the rest is fixed.
    if (selfMigrating && problems.length > 0) return { config: undefined, problems };
    if (selfMigrating && options.readOnly === true) {
      log("[agent-gate] The embedded SQLite database (DATABASE_URL default) is not migrated yet: the start applies its migrations.");
      return { config: checked.ok ? checked.config : undefined, problems };
    }
    if (selfMigrating) {
      try {
        await migrate(url, projectDir);
        log("Applied the migrations to the embedded SQLite database (DATABASE_URL default).");
        state = await migrationState(url, projectDir);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        problems.push({ kind: "database", variable: "DATABASE_URL", detail: `(the embedded SQLite default) could not be migrated: ${reason}; ${MIGRATE_HINT}` });
        return { config: undefined, problems };
      }
    }
    if (state.kind === "empty") {
      problems.push({ kind: "database", variable: "DATABASE_URL", detail: `points to a database that was never migrated (no _prisma_migrations table): ${MIGRATE_HINT}` });
    } else if (state.kind === "behind") {
      problems.push({ kind: "database", variable: "DATABASE_URL", detail: `points to a database that is not migrated: ${describeBehind(state)}; ${MIGRATE_HINT}` });
    } else if (state.kind === "unknown" && problems.length === 0) {
      // Not a refusal: a database that is down now may be up in a minute; requests get 503 meanwhile.
      log(`Could not check the database's migrations (${state.reason}); requests that need it answer 503 until it is reachable.`);
    }
  }
  return { config: problems.length === 0 && checked.ok ? checked.config : undefined, problems };
}
