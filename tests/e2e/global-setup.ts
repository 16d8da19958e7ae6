// Playwright global setup: template database and one production server (dist/server.mjs); tests read E2E_BASE_URL.
import { ensureTemplate } from "../support/databases";
import { startServer } from "../support/server";

export default async function globalSetup(): Promise<() => Promise<void>> {
  await ensureTemplate();
  // Agents' key directories run on 127.0.0.1 in the specs (verified-agent.spec.ts, issue 44).
  const server = await startServer({ label: "e2e", env: { AGENT_DIRECTORY_ALLOW_PRIVATE: "1" } });
  process.env.E2E_BASE_URL = server.baseUrl;
  process.env.E2E_DATABASE_URL = server.databaseUrl;
  return () => server.stop();
}
