// Prisma CLI config for the embedded SQLite database (the default).
// engine "js" + a driver adapter: the CLI never downloads a native engine (see README, "Database").
import { defineConfig } from "prisma/config";
import { sqliteCliAdapterFactory } from "./prisma/adapters";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  adapter: async () => sqliteCliAdapterFactory(process.env.DATABASE_URL),
});
