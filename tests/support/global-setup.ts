// Vitest global setup: one template database, and one shared production server (dist/server.mjs) (public release mode)
// that HTTP tests reach through inject("baseUrl").
import type { TestProject } from "vitest/node";
import { ensureTemplate } from "./databases";
import { startServer, type TestServer } from "./server";

let server: TestServer | undefined;

/**
 * Every HTTP test file shares this server and its one caller address (127.0.0.1): the in-memory budgets of the
 * anonymous surfaces (lib/rate-limit/budgets.ts) are lifted here so fuzzing and crawling tests never meet them.
 * tests/http/budgets.test.ts checks the budgets themselves on servers of its own with small allowances. Admission's
 * per-caller share is lifted for the same reason (every test file is one caller here); tests/http/fairness.test.ts
 * checks the shares on servers of its own.
 */
export const SHARED_SERVER_BUDGETS: Record<string, string> = {
  RATE_LIMIT_MCP_PER_MINUTE: "1000000",
  RATE_LIMIT_MCP_DOCS_PER_MINUTE: "1000000",
  RATE_LIMIT_A2A_PER_MINUTE: "1000000",
  RATE_LIMIT_ASK_PER_MINUTE: "1000000",
  RATE_LIMIT_SIMULATE_PER_MINUTE: "1000000",
  RATE_LIMIT_MAP_SEARCH_PER_MINUTE: "1000000",
  RATE_LIMIT_LOOKUPS_PER_MINUTE: "1000000",
  RATE_LIMIT_TOKEN_EXCHANGE_PER_MINUTE: "1000000",
  ADMISSION_CALLER_SHARE: "1",
  RATE_LIMIT_PROBES_PER_MINUTE: "1000000",
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureTemplate();
  server = await startServer({ label: "shared", env: SHARED_SERVER_BUDGETS });
  project.provide("baseUrl", server.baseUrl);
  project.provide("databaseUrl", server.databaseUrl);
  return async () => {
    await server?.stop();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
  }
}
