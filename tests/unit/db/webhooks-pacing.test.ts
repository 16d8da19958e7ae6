// Webhook delivery yields to requests (issue #16 item 7): fan-out runs in transactions of 20 events and each
// full one is followed by a pause in proportion to its time (20 % duty cycle), each full send batch by one of
// equal length (50 %: sends mostly wait on the network); an endpoint's secrets are decrypted once per pass.
// A fake clock and sleep: nothing waits; the HTTP attempt is replaced.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeEndpoint, runDeliveryPass } from "@/lib/webhooks";
import type { sendWebhook } from "@/lib/webhooks/send";
import { endpointWithBacklog } from "../../support/pacing";
import { configureFile } from "../../support/config";

let endpointId = "";
beforeAll(() => {
  configureFile({ WEBHOOK_ALLOW_PRIVATE: "1" });
});
afterAll(async () => {
  if (endpointId) await removeEndpoint(endpointId);
});

describe("delivery pacing", () => {
  it("45 events: fan-out in 20 + 20 + 5 between sends of 16 + 16 + 13, a pause after each full transaction and batch, one decryption", async () => {
    const backlog = await endpointWithBacklog(45);
    const clock = backlog.clock;
    endpointId = backlog.endpointId;

    let time = 0;
    const pauses: number[] = [];
    // Every reading moves this clock by 5 ms: each unit of work measures 5 ms.
    const now = () => (time += 5);
    const sleep = async (ms: number) => void pauses.push(ms);
    const secretsSeen = new Set<readonly string[]>();
    let sends = 0;
    const send: typeof sendWebhook = async (input) => {
      sends++;
      secretsSeen.add(input.secrets);
      return { status: 204, ok: true, excerpt: "" };
    };

    const summary = await runDeliveryPass({ clock, send, pacing: { now, sleep } });
    expect(summary).toMatchObject({ fannedOut: 45, delivered: 45 });
    expect(sends).toBe(45);
    // Fan-out 20 (pause 20), send 16 (pause 5), fan-out 20 (pause 20), send 16 (pause 5), fan-out 5, send 13.
    expect(pauses).toEqual([20, 5, 20, 5]);
    // Decrypted once in the pass: every send got the same secrets.
    expect(secretsSeen.size).toBe(1);
  });
});
