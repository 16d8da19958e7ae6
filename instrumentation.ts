// Runs once when the server starts: refuse an unsafe start (every problem at once, exit 1; lib/startup/preflight.ts)
// and stamp requests with their socket address (lib/http/peer-stamp.ts). Next holds requests until this resolves.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startNodeServer } = await import("@/lib/startup");
    await startNodeServer();
  }
}
