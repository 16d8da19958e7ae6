// Runs once when Next starts, whoever starts it (server.ts, a bare `next start`, `next dev`). Under server.ts
// the checks already ran before listening; otherwise refuse an unsafe start here (every problem at once, exit
// 1; lib/startup/preflight.ts). The server itself (socket-address stamp, node:http front, turns, checkpoint
// worker) is server.ts.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { configOrExit, refuseUnsafeStart, startedByServerEntry } = await import("@/lib/startup");
    if (startedByServerEntry()) return;
    await refuseUnsafeStart();
    const config = configOrExit();
    if (process.env.NODE_ENV === "production" && config.trustedProxy.kind !== "vercel") {
      // Without server.ts nothing stamps the socket address, which TRUSTED_PROXY=none and hop counts rely on.
      console.error("[agent-gate] started without server.ts (use npm start): socket addresses are not stamped and the node:http front is off");
    }
  }
}
