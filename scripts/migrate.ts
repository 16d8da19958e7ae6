// npm run db:migrate: applies the migrations of DATABASE_URL's provider (default: the embedded SQLite file).
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_SQLITE_URL, sqliteFilePath } from "../prisma/adapters";
import { migrate, ROOT } from "./lib";

const url = process.env.DATABASE_URL || DEFAULT_SQLITE_URL;
if (url.startsWith("file:")) fs.mkdirSync(path.dirname(sqliteFilePath(url)), { recursive: true });
process.chdir(ROOT);
migrate(url);
