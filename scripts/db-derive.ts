// npm run db:derive [-- --check]: writes (or checks) prisma/postgres/schema.prisma from prisma/schema.prisma.
import fs from "node:fs";
import { derivedPostgresSchema, POSTGRES_SCHEMA } from "./prisma-tools";

const expected = derivedPostgresSchema();
if (process.argv.includes("--check")) {
  if (fs.readFileSync(POSTGRES_SCHEMA, "utf8") !== expected) {
    console.error("prisma/postgres/schema.prisma is out of date: run npm run db:derive");
    process.exit(1);
  }
  console.log("prisma/postgres/schema.prisma matches prisma/schema.prisma.");
} else {
  fs.writeFileSync(POSTGRES_SCHEMA, expected);
  console.log("Wrote prisma/postgres/schema.prisma.");
}
