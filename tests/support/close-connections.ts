// For logic files, which share their worker (vitest.config.mts): a file closes the database connections it opened, or
// the next files' would pile up beside them (PostgreSQL refuses past max_connections).
import { afterAll } from "vitest";
import { closeConnection } from "@/lib/db";
import { closeDb } from "@/lib/db/prisma";

afterAll(async () => {
  await Promise.all([closeConnection(), closeDb()]);
});
