// For logic tests that use the database: point DATABASE_URL at a fresh copy of the template before
// anything reads the configuration. Import this first in such a test file's setup (vitest setupFiles).
import { beforeAll } from "vitest";
import { freshDatabase } from "./databases";

// Vitest sets BASE_URL="/" for Vite; logic tests run with the local default instead.
process.env.BASE_URL = "http://localhost:3000";

beforeAll(async () => {
  process.env.DATABASE_URL = await freshDatabase("unit");
});
