// npm run db:migrate: applies the migrations of DATABASE_URL's provider (default: the embedded SQLite file), through
// the platform's direct URL when one is set (migrationDatabaseUrl).
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_SQLITE_URL, sqliteFilePath } from "../prisma/adapters";
import { migrate, migrationDatabaseUrl, ROOT } from "./lib";

const url = migrationDatabaseUrl(process.env, DEFAULT_SQLITE_URL);
if (url.startsWith("file:")) fs.mkdirSync(path.dirname(sqliteFilePath(url)), { recursive: true });
process.chdir(ROOT);
migrate(url);
