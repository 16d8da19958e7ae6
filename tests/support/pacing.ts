// Fixtures the pacing tests share: a clock and sleep moved by hand, and a backlog of webhook events.
import { ManualClock } from "@/lib/clock";
import { addEndpoint } from "@/lib/webhooks";
import { insertEvent } from "@/lib/webhooks/stores/events";

/** A clock the fake work and sleeps move by hand; records every pause. */
export function fakeTime() {
  let now = 0;
  const pauses: number[] = [];
  return {
    now: () => now,
    advance: (ms: number) => void (now += ms),
    sleep: async (ms: number) => {
      pauses.push(ms);
      now += ms;
    },
    pauses,
  };
}

/** An endpoint (a closed local port) and `events` outbox events written after it. */
export async function endpointWithBacklog(events: number): Promise<{ clock: ManualClock; endpointId: string }> {
  const clock = new ManualClock();
  const endpointId = (await addEndpoint({ url: "http://127.0.0.1:9/hook" }, clock)).id;
  clock.advance(1);
  for (let i = 0; i < events; i++) await insertEvent({ type: "delegation.requested", payload: JSON.stringify({ n: i }), now: clock.now() });
  return { clock, endpointId };
}
