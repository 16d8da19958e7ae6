// npm run demo: migrate the embedded SQLite database, load demo data when empty, build, and start.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { childProcessEnvironment, ConfigError, getConfig, type AppConfig } from "@/lib/config";
import { sqliteFilePath } from "../prisma/adapters";
import { migrate, ROOT } from "./lib";

process.chdir(ROOT);

/** The configuration npm start will have (PORT, DATABASE_URL and BASE_URL with their defaults), or exit 1 on a bad one. */
function configOrExit(): AppConfig {
  try {
    return getConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const { port, databaseUrl, baseUrl } = configOrExit();
const env = childProcessEnvironment({ DATABASE_URL: databaseUrl, BASE_URL: baseUrl, PORT: String(port), NEXT_TELEMETRY_DISABLED: "1" });
if (databaseUrl.startsWith("file:")) fs.mkdirSync(path.dirname(sqliteFilePath(databaseUrl)), { recursive: true });

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

migrate(databaseUrl);
run("npx", ["tsx", "scripts/seed.ts"]);
run("npm", ["run", "build"]);
console.log(`\nAgent Gate is starting at ${baseUrl}`);
console.log("Demo logins: see README.md, section 'Demo logins' (e.g. ada@example.com / demo-password).\n");
const server = spawn("npm", ["start"], { stdio: "inherit", env });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
