// Issue 14: for any table, one module writes it (its store), and the app never goes through Prisma. Read from
// the source: every INSERT, UPDATE and DELETE of a table in app/ and lib/ must sit in that table's store.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");

/** Table → the one module that writes it. */
const STORES: Readonly<Record<string, string>> = {
  Registration: "lib/grants/registrations.ts",
  ClaimAttempt: "lib/grants/claim-attempts.ts",
  Delegation: "lib/grants/delegations.ts",
  AccessToken: "lib/grants/access-tokens.ts",
  AuditEvent: "lib/audit/index.ts",
  Member: "lib/members/store.ts",
  Certificate: "lib/certificates/index.ts",
  SigningKey: "lib/keys/index.ts",
  LocalSecret: "lib/local-secrets/index.ts",
  RateLimitBucket: "lib/rate-limit/index.ts",
  SharedState: "lib/shared-state/postgres.ts",
  AgentNamePreRegistration: "lib/tools/register-agent.ts",
  CachedStat: "lib/tools/community-stats.ts",
  A2ATask: "lib/a2a/task-store.ts",
  WebhookEndpoint: "lib/webhooks/stores/endpoints.ts",
  WebhookEvent: "lib/webhooks/stores/events.ts",
  WebhookDelivery: "lib/webhooks/stores/deliveries.ts",
  ConsentSetting: "lib/consent/settings.ts",
  AgentReport: "lib/consent/reports.ts",
  BlockedAgentOrigin: "lib/consent/blocks.ts",
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

const WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"([A-Za-z0-9]+)"/g;

describe("one writer per table", () => {
  const files = [...sourceFiles("lib"), ...sourceFiles("app")];
  const schema = fs.readFileSync(path.join(ROOT, "prisma/schema.prisma"), "utf8");
  const tables = [...schema.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]!);

  it("every table of the schema has a store", () => {
    expect(tables.filter((table) => !(table in STORES))).toEqual([]);
  });

  it("every write of a table sits in its store", () => {
    const strays: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      for (const match of text.matchAll(WRITE)) {
        const table = match[1]!;
        if (STORES[table] !== file) strays.push(`${file} writes ${table}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it("every store does write its table (the mapping is not stale)", () => {
    for (const [table, store] of Object.entries(STORES)) {
      const text = fs.readFileSync(path.join(ROOT, store), "utf8");
      expect(
        [...text.matchAll(WRITE)].some((m) => m[1] === table),
        `${store} writes ${table}`,
      ).toBe(true);
    }
  });

  it("the app and its libraries never use the Prisma client (only lib/db/prisma.ts builds it, for tests and scripts)", () => {
    const users = files.filter(
      (file) => file !== "lib/db/prisma.ts" && /from "@\/lib\/(generated|db\/prisma)|@prisma\/client/.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(users).toEqual([]);
  });
});
