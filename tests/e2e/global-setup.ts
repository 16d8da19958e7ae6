// Playwright global setup: template database and one production server (dist/server.mjs); tests read E2E_BASE_URL.
import { prepareTemplate } from "../support/databases";
import { startServer } from "../support/server";

export default async function globalSetup(): Promise<() => Promise<void>> {
  await prepareTemplate();
  const server = await startServer({ label: "e2e" });
  process.env.E2E_BASE_URL = server.baseUrl;
  process.env.E2E_DATABASE_URL = server.databaseUrl;
  return () => server.stop();
}
