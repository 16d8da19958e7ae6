// Webhooks survive a crash: the server is killed (SIGKILL) while the receiver holds a delivery open; after a restart on
// the same database the event comes again with the same webhook-id (at least once, never lost).
// (Its own file: this process's lib functions follow the one DATABASE_URL its configuration first read.)
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/prisma";

import { addEndpoint } from "@/lib/webhooks";
import { newMember, register, startAuthServer, useServerDatabase } from "../support/agent-auth";
import { startServer } from "../support/server";
import { startReceiver, type ReceivedWebhook } from "../support/webhook-receiver";
import { configureFile } from "../support/config";

const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: "1" };
/** The tests' own options (lib/config/test-options.ts): a pass every 200 ms, retries in seconds. */
const WEBHOOK_FLAGS = ["--test-webhook-poll-ms=200", "--test-webhook-retry-scale=0.02"];
configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });
const about = (registrationId: string) => (r: ReceivedWebhook) => r.payload.data.registration_id === registrationId;

describe("a server killed mid-delivery", () => {
  it("redelivers the event with the same webhook-id after a restart on the same database", async () => {
    const env = { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_SECONDS: "2" };
    let server = await startAuthServer(env, WEBHOOK_FLAGS);
    useServerDatabase(server.databaseUrl);
    const receiver = await startReceiver();
    try {
      const endpoint = await addEndpoint({ url: receiver.url, events: "delegation.requested" });
      receiver.secrets = [endpoint.secret];
      let killed = false;
      receiver.answer = () => (killed ? { status: 204 } : "hang");
      const email = await newMember();
      const reg = await register(server.baseUrl, email);
      const [first] = await receiver.waitFor(about(reg.registration_id));
      await server.kill();
      killed = true;
      expect((await getDb().webhookDelivery.findUniqueOrThrow({ where: { id: first.id } })).status).toBe("pending");
      server = await startServer({ label: "auth", databaseUrl: server.databaseUrl, env: { TRUSTED_PROXY: "1", ...env }, testFlags: WEBHOOK_FLAGS });
      const both = await receiver.waitFor(about(reg.registration_id), 2, 40_000);
      expect(both[1].id).toBe(first.id);
      await expect.poll(async () => (await getDb().webhookDelivery.findUniqueOrThrow({ where: { id: first.id } })).status, { timeout: 5000 }).toBe("delivered");
    } finally {
      await server.stop();
      await receiver.close();
    }
  }, 120_000);
});
