// Start-up checks shared by server.ts (npm start) and instrumentation.ts (a bare `next start`, `next dev`).
import { ConfigError, getConfig, type AppConfig } from "@/lib/config";

/** The configuration, or the process stops with one clear line naming the bad variable. */
export function configOrExit(): AppConfig {
  try {
    return getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}
