import { parseConfig, type AppConfig } from "./schema";

export type { AppConfig, TrustedProxy, Ed25519PrivateJwk } from "./schema";
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
