// Vitest global setup: one template database, and one shared production server (dist/server.mjs) (public release mode)
// that HTTP tests reach through inject("baseUrl").
import type { TestProject } from "vitest/node";
import { prepareTemplate } from "./databases";
import { startServer, type TestServer } from "./server";

let server: TestServer | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await prepareTemplate();
  server = await startServer({ label: "shared" });
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
