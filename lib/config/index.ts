import { ConfigError, parseConfig, settingsEnvSchema, type AppConfig, type Settings } from "./schema";

export type { AppConfig, TrustedProxy, Ed25519PrivateJwk, Settings } from "./schema";
export { ConfigError, parseConfig } from "./schema";

let cached: AppConfig | undefined;

/** The process configuration, parsed once (instrumentation.ts parses it at start so bad values stop the process). */
export function getConfig(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Absolute URL on this service, always derived from BASE_URL (never from the request's Host). */
export function absoluteUrl(path: string): string {
  return `${getConfig().baseUrl}${path.startsWith("/") ? path : `/${path}`}`;
}

/**
 * One setting of `settingsEnvSchema`, read from the environment on each call (tests change them between cases;
 * a start already refused a bad value, so one here throws the same ConfigError line).
 */
export function setting<K extends keyof Settings>(name: K): Settings[K] {
  const value = process.env[name];
  const parsed = settingsEnvSchema.shape[name].safeParse(value === "" ? undefined : value);
  if (!parsed.success) throw new ConfigError(name, parsed.error.issues[0]?.message ?? "is invalid");
  return parsed.data as Settings[K];
}

/** The environment as it is, for the start checks (lib/startup/preflight.ts) and the child processes they run. */
export function environment(): Readonly<NodeJS.ProcessEnv> {
  return process.env;
}
