// Prisma CLI config for PostgreSQL: the same models (derived schema), its own migrations.
import { defineConfig } from "prisma/config";
import { postgresCliAdapterFactory } from "./prisma/adapters";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/postgres/schema.prisma",
  migrations: { path: "prisma/postgres/migrations" },
  adapter: async () => postgresCliAdapterFactory(process.env.DATABASE_URL),
});
