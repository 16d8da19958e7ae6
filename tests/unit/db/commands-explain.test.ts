// Issue #17 item 8: every npm command that opens the database answers an unmigrated or unreachable
// database with one line saying what to run or what failed, a non-zero exit code, never the raw error.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandFailure, withoutCredentials } from "../../../scripts/command";

const root = path.resolve(__dirname, "../../..");
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");

const COMMANDS: [name: string, script: string, args: string[]][] = [
  ["member:add", "scripts/member-add.ts", ["--email", "new.member@example.com", "--password", "s3cret-passphrase", "--name", "New Member"]],
  ["db:seed", "scripts/seed.ts", []],
  ["janitor", "scripts/janitor.ts", []],
];

function run(script: string, args: string[], databaseUrl: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl };
  delete env.BASE_URL;
  const result = spawnSync(process.execPath, [tsx, script, ...args], { cwd: root, encoding: "utf8", env, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function emptySqliteFile(name: string): string {
  const dir = path.join(root, ".tmp", "commands");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^a-z]/g, "-")}-${process.pid}.db`);
  fs.rmSync(file, { force: true });
  return file;
}

describe("commands explain an unmigrated or unreachable database", () => {
  it.each(COMMANDS)(
    "%s on an empty SQLite file says to run db:migrate",
    (name, script, args) => {
      const r = run(script, args, `file:${emptySqliteFile(name)}`);
      expect(r.code).toBe(3);
      expect(r.stderr.trim()).toBe(`${name}: the database is not migrated; run \`npm run db:migrate\``);
      expect(r.stdout).toBe("");
    },
    60_000,
  );

  it.each(COMMANDS)(
    "%s on an unreachable PostgreSQL says what failed, without credentials",
    (name, script, args) => {
      const r = run(script, args, "postgresql://operator:hunter2-secret@127.0.0.1:1/agentgate");
      expect(r.code).toBe(4);
      expect(r.stderr.trim()).toBe(`${name}: cannot reach the database (connection refused by 127.0.0.1:1)`);
      expect(`${r.stdout}${r.stderr}`).not.toContain("hunter2-secret");
    },
    60_000,
  );

  it("recognizes PostgreSQL's undefined_table and Prisma's P2021 as an unmigrated database", () => {
    expect(commandFailure("x", Object.assign(new Error('relation "Member" does not exist'), { code: "42P01" })).exitCode).toBe(3);
    expect(commandFailure("x", Object.assign(new Error("The table `main.Member` does not exist"), { code: "P2021" })).line).toBe(
      "x: the database is not migrated; run `npm run db:migrate`",
    );
    expect(commandFailure("x", new Error("something else")).line).toBe("x: failed: something else");
  });

  it("strips credentials from what it repeats of a driver's message", () => {
    expect(withoutCredentials("cannot connect to postgresql://admin:pa55word@db.internal:5432/app")).toBe("cannot connect to postgresql://db.internal:5432/app");
    expect(withoutCredentials("host=db password=pa55word user=x")).not.toContain("pa55word");
  });
});
