// Every name checked (issue 51): a variable in one of the project's own families that no setting knows is refused at
// start, with the nearest known name, so a misspelt setting never starts the service with its default in silence.
// The known names are the schemas' (./reference.ts) and, for RATE_LIMIT_*, the budget table's (lib/rate-limit).

/**
 * The project's own families of names, the one list. Each is specific to this service: the platform's and the
 * tools' own variables never start with one (NODE_*, NEXT_*, VERCEL_*, npm_*, and OTEL_*, the OpenTelemetry
 * standard's, whose exporter and SDK read dozens of names this service does not list). Hence `AGENT_DIRECTORY_`
 * rather than `AGENT_` (Azure Pipelines sets AGENT_* in every job), and `DATABASE_POOL`/`DATABASE_STATEMENT` rather
 * than `DATABASE_` (database providers set DATABASE_URL_UNPOOLED, DATABASE_PUBLIC_URL, DATABASE_HOST…).
 */
export const SETTING_PREFIXES = [
  "RATE_LIMIT_",
  "ADMISSION_",
  "REQUEST_",
  "WEBHOOK_",
  "JANITOR",
  "AUDIT_",
  "CRON_",
  "AGENT_DIRECTORY_",
  "VERIFIED_AGENT_",
  "TRUSTED_",
  "SIGNING_",
  "AUTH_",
  "RELEASE_",
  "ALLOW_INSECURE_",
  "DATABASE_POOL",
  "DATABASE_STATEMENT",
  "SHARED_STATE",
] as const;

/** The budgets' family: its names are the budget table's (lib/rate-limit/budgets.ts), which checks them at start. */
export const ALLOWANCE_PREFIX = "RATE_LIMIT_";

/** True for a name of one of `prefixes`. */
export function hasSettingPrefix(name: string, prefixes: readonly string[] = SETTING_PREFIXES): boolean {
  return prefixes.some((prefix) => name.startsWith(prefix));
}

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known name nearest to `name`, when it is near enough to be what was meant (a quarter of its letters, at least 2). */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 4));
  let nearest: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= limit && (!nearest || distance < nearest.distance || (distance === nearest.distance && candidate < nearest.name))) nearest = { name: candidate, distance };
  }
  return nearest?.name;
}

/**
 * One problem per variable of `env` in one of `prefixes` that `known` does not hold (a blank one counts as unset),
 * in name order: "RATE_LIMIT_ASK_PER_MINUT is not a setting; did you mean RATE_LIMIT_ASK_PER_MINUTE?".
 */
export function unknownSettingProblems(
  env: Readonly<Record<string, string | undefined>>,
  known: ReadonlySet<string>,
  prefixes: readonly string[],
): { variable: string; detail: string }[] {
  const problems: { variable: string; detail: string }[] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || value.trim() === "" || known.has(name) || !hasSettingPrefix(name, prefixes)) continue;
    const nearest = nearestName(name, known);
    problems.push({
      variable: name,
      detail: nearest
        ? `is not a setting; did you mean ${nearest}?`
        : "is not a setting: remove it (docs/configuration.md lists every setting; `npm run -s config` prints them with their values)",
    });
  }
  return problems;
}
