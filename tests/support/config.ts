// Tests build configurations instead of editing process.env (issue 43): each helper builds one from variables with
// configFrom (the same checks as a start) and installs it as the configuration lib/ reads (getConfig()).
import { configFrom, installConfig, type AppConfig } from "@/lib/config";

type Variables = Record<string, string | undefined>;

const FILE_DEFAULTS: Variables = { BASE_URL: "http://localhost:3000" };

/** This test file's variables: the local default BASE_URL, its database (./unit-db.ts) and what the file sets for all its cases. */
let fileVariables: Variables = { ...FILE_DEFAULTS };

/**
 * Starts a test file's configuration from the defaults again (./unit-db.ts, before each file): logic files share their
 * worker's modules (vitest.config.mts), this one among them, so a file never inherits the variables of the one before.
 */
export function startFileConfig(): AppConfig {
  fileVariables = { ...FILE_DEFAULTS };
  return useTestConfig();
}

/** Adds variables to this file's configuration (kept for its later cases) and installs it. */
export function configureFile(variables: Variables): AppConfig {
  Object.assign(fileVariables, variables);
  return useTestConfig();
}

/** Installs this file's configuration with `variables` over it (undefined: unset); without them, the file's own. */
export function useTestConfig(variables: Variables = {}): AppConfig {
  const config = configFrom({ ...fileVariables, ...variables });
  installConfig(config);
  return config;
}

/** As useTestConfig, into the fresh copy of lib/config that imports load after vi.resetModules(). */
export async function useTestConfigAfterReset(variables: Variables = {}): Promise<AppConfig> {
  const fresh = await import("@/lib/config");
  const config = fresh.configFrom({ ...fileVariables, ...variables });
  fresh.installConfig(config);
  return config;
}
