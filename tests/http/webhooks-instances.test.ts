// Two `next start` instances on one database, each running its delivery loop: row claims keep them apart, so
// each event reaches each endpoint once (run on PostgreSQL with TEST_DATABASE=postgres; SQLite too).
// (Its own file: this process's lib functions follow the one DATABASE_URL its configuration first read.)
import { describe, expect, it } from "vitest";
import { registerClaim } from "@/lib/service-auth/lifecycle";
import { SCOPES } from "@/lib/schemas/service-auth";
import { addEndpoint } from "@/lib/webhooks";
import { startAuthServer, useServerDatabase } from "../support/agent-auth";
import { startServer } from "../support/server";
import { startReceiver } from "../support/webhook-receiver";
import { configureFile } from "../support/config";

const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: "1" };
/** The tests' own options (lib/config/test-options.ts): a pass every 200 ms, retries in seconds. */
const WEBHOOK_FLAGS = ["--test-webhook-poll-ms=200", "--test-webhook-retry-scale=0.02"];
configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });

describe("two instances on one database", () => {
  it("acknowledge each event once per endpoint", async () => {
    const first = await startAuthServer(WEBHOOK_ENV, WEBHOOK_FLAGS);
    const second = await startServer({ label: "auth", databaseUrl: first.databaseUrl, env: { TRUSTED_PROXY: "1", ...WEBHOOK_ENV }, testFlags: WEBHOOK_FLAGS });
    useServerDatabase(first.databaseUrl);
    const receivers = [await startReceiver(), await startReceiver()];
    try {
      for (const receiver of receivers) receiver.secrets = [(await addEndpoint({ url: receiver.url, events: "delegation.requested" })).secret];
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push((await registerClaim({ loginHint: "ada@example.com", clientName: `Agent ${i}`, scopes: [...SCOPES] })).registrationId);
      for (const receiver of receivers) {
        await receiver.waitFor((r) => ids.includes(String(r.payload.data.registration_id)), 30, 60_000);
      }
      await new Promise((r) => setTimeout(r, 2000));
      for (const receiver of receivers) {
        const mine = receiver.received.filter((r) => ids.includes(String(r.payload.data.registration_id)));
        expect(mine).toHaveLength(30);
        expect(new Set(mine.map((r) => r.id)).size).toBe(30);
        expect(receiver.rejected).toEqual([]);
      }
    } finally {
      await Promise.all([first.stop(), second.stop(), ...receivers.map((r) => r.close())]);
    }
  }, 180_000);
});
