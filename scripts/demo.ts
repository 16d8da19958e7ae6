// npm run demo: migrate the embedded SQLite database, load demo data when empty, build, and start.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_SQLITE_URL, sqliteFilePath } from "../prisma/adapters";
import { migrate, ROOT } from "./lib";

process.chdir(ROOT);
const port = process.env.PORT || "3000";
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL || DEFAULT_SQLITE_URL,
  BASE_URL: process.env.BASE_URL || `http://localhost:${port}`,
  NEXT_TELEMETRY_DISABLED: "1",
};
if (env.DATABASE_URL!.startsWith("file:")) fs.mkdirSync(path.dirname(sqliteFilePath(env.DATABASE_URL!)), { recursive: true });

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

migrate(env.DATABASE_URL!);
run("npx", ["tsx", "scripts/seed.ts"]);
run("npm", ["run", "build"]);
console.log(`\nAgent Gate is starting at ${env.BASE_URL}`);
console.log("Demo logins: see README.md, section 'Demo logins' (e.g. ada@example.com / demo-password).\n");
const server = spawn("npm", ["start"], { stdio: "inherit", env: { ...env, PORT: port } });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
