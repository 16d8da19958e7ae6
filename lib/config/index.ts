// The one way to read configuration (issue 43): getConfig() returns one frozen object, built from the environment
// and checked once. This folder is the only code that touches process.env (tests/unit/config-reader.test.ts).
import { checkConfig as checkVariables, configFrom, type AppConfig, type ConfigCheck } from "./schema";

export type { AppConfig, TrustedProxy, Ed25519PrivateJwk, WebhookSettings } from "./schema";
export type { OperationsConfig } from "./operations";
export type { OtlpMetricsConfig, TracingConfig } from "./tracing";
export type { SharedStateConfig } from "./shared-state";
export { ConfigError, configFrom } from "./schema";

type Variables = Readonly<Record<string, string | undefined>>;

let current: AppConfig | undefined;

/**
 * The configuration. The start installs the one its checks built (lib/startup); a module copy that was not there
 * (Next's bundle under npm start) builds the same from the same environment on its first read.
 */
export function getConfig(): AppConfig {
  current ??= configFrom(process.env, processArguments());
  return current;
}

/**
 * Every problem of these variables (default: the environment) and arguments (default: the process's, for the tests'
 * `--test-` flags), for the start checks (lib/startup/preflight.ts).
 */
export function checkConfig(env: Variables = process.env, args: readonly string[] = processArguments()): ConfigCheck {
  return checkVariables(env, args);
}

/** The process's arguments after node and its script: npm start's server reads the tests' options there (./test-options.ts). */
function processArguments(): readonly string[] {
  return process.argv.slice(2);
}

/** Makes `config` the one getConfig() returns: the start installs what its checks built, a test what it built. */
export function installConfig(config: AppConfig): void {
  current = config;
}

/**
 * next-auth 4 takes its base URL from NEXTAUTH_URL on every request (next-auth/utils/detect-origin.js; its options
 * have no such member), and next-auth/react reads it when loaded. So the start sets it once, from BASE_URL, before
 * Next serves: the one write to process.env, here where the environment is read.
 */
export function exportNextAuthUrl(config: AppConfig): void {
  process.env.NEXTAUTH_URL = config.baseUrl;
}

/** The environment for a child process the start runs (prisma migrate deploy), with `overrides`. Not configuration. */
export function childProcessEnvironment(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...overrides };
}

/** Absolute URL on this service, always derived from BASE_URL (never from the request's Host). */
export function absoluteUrl(path: string): string {
  return `${getConfig().baseUrl}${path.startsWith("/") ? path : `/${path}`}`;
}
