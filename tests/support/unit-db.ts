// For logic tests that use the database: this file's configuration points at a fresh copy of the template before
// anything reads it (vitest setupFiles). Configurations are built, never read from process.env (./config.ts).
import { beforeAll } from "vitest";
import { freshDatabase } from "./databases";
import { configureFile, startFileConfig } from "./config";

// Vitest sets BASE_URL="/" for Vite in process.env; logic tests run with the local default (./config.ts), installed
// here so a module that reads the configuration when loaded finds it (and not the file's before it, in a shared worker).
startFileConfig();

beforeAll(async () => {
  configureFile({ DATABASE_URL: await freshDatabase("unit") });
});
