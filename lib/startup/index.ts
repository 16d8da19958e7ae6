// Node.js-only start-up work, loaded by instrumentation.ts.
import { ConfigError, getConfig } from "@/lib/config";
import { installPeerStamp } from "@/lib/http/peer-stamp";

export function startNodeServer(): void {
  try {
    getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      // One clear line naming the variable, then stop.
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  installPeerStamp();
}
