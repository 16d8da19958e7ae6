// Node.js-only start-up work, loaded by instrumentation.ts.
import { ConfigError, getConfig } from "@/lib/config";
import { serveFront } from "@/lib/front";
import { installPeerStamp } from "@/lib/http/peer-stamp";

export function startNodeServer(): void {
  let front: boolean;
  try {
    front = getConfig().nodeFront;
  } catch (error) {
    if (error instanceof ConfigError) {
      // One clear line naming the variable, then stop.
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  // The front only under `next start`: `next dev` keeps recompiling route files, the front would not.
  installPeerStamp(front && process.env.NODE_ENV === "production" ? serveFront : undefined);
}
