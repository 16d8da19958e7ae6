// Runs once when the server starts: validate configuration (a bad value stops the process with one
// line naming the variable) and stamp requests with their socket address (lib/http/peer-stamp.ts).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startNodeServer } = await import("@/lib/startup");
    startNodeServer();
  }
}
