// Runs once when Next starts, whoever starts it (server.ts, a bare `next start`, `next dev`): validate the
// configuration, so a bad value stops the process with one line naming the variable. The server itself
// (socket-address stamp, node:http front, turns, checkpoint worker) is server.ts.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { configOrExit } = await import("@/lib/startup");
    configOrExit();
  }
}
