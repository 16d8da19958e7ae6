// Runs once when Next starts, whoever starts it (server.ts, a bare `next start`, `next dev`): validate the
// configuration, so a bad value stops the process with one line naming the variable. The server itself
// (socket-address stamp, node:http front, turns, checkpoint worker) is server.ts.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { configOrExit, startedByServerEntry } = await import("@/lib/startup");
    const config = configOrExit();
    if (process.env.NODE_ENV === "production" && !startedByServerEntry() && config.trustedProxy.kind !== "vercel") {
      // Without server.ts nothing stamps the socket address, which TRUSTED_PROXY=none and hop counts rely on.
      console.error("[agent-gate] started without server.ts (use npm start): socket addresses are not stamped and the node:http front is off");
    }
  }
}
