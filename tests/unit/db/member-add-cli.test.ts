import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/prisma";
import { getConfig } from "@/lib/config";
import { childEnv } from "../../support/databases";

const root = path.resolve(__dirname, "../../..");

// tsx's CLI straight from node_modules: `npx` adds about a second of package resolution to every run.
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");

function memberAdd(args: string[]) {
  const result = spawnSync(process.execPath, [tsx, "scripts/member-add.ts", ...args], { cwd: root, encoding: "utf8", env: childEnv({ DATABASE_URL: getConfig().databaseUrl }) });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe("npm run member:add", () => {
  it("adds a member and never echoes the password", async () => {
    const r = memberAdd(["--email", "Cli.User@Example.com", "--password", "s3cret-passphrase", "--name", "Cli User"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Added member cli.user@example.com");
    expect(r.out).not.toContain("s3cret-passphrase");
    expect(await getDb().member.findUnique({ where: { email: "cli.user@example.com" } })).not.toBeNull();
  }, 60_000);

  it("refuses a duplicate with a clear error", () => {
    const r = memberAdd(["--email", "ada@example.com", "--password", "s3cret-passphrase", "--name", "Again"]);
    expect(r.code).toBe(2);
    expect(r.out).toContain("already exists");
    expect(r.out).not.toContain("s3cret-passphrase");
  }, 60_000);

  it.each([
    [["--email", "not-an-email", "--password", "s3cret-passphrase", "--name", "X"], "email"],
    [["--email", "short@example.com", "--password", "short", "--name", "X"], "password"],
    [["--email", "missing@example.com", "--name", "X"], "required"],
    [["--bogus"], "Unknown option"],
  ])(
    "refuses bad input %j",
    (args, mentions) => {
      const r = memberAdd(args);
      expect(r.code).toBe(2);
      expect(r.out).toContain(mentions);
    },
    60_000,
  );
});
