// Issue 51 item 6: one bounded body read per request under `npm start`. There server.ts's body gate has read every
// body within its route's limit before Next runs (lib/server/body-gate.ts), so proxy.ts neither reads nor checks it
// again; under a bare `next start` and on Vercel, where no gate runs, proxy.ts refuses a body over its route's limit
// with 413 (at its Content-Length, or as a chunked body passes the limit). proxy() is called here as Next calls it,
// with a body whose reads are counted. tests/http/body-limits-next.test.ts checks the bare `next start` side over HTTP,
// tests/http/operations-parity.test.ts the 413 in every start mode.
import { NextRequest } from "next/server";
import { afterAll, describe, expect, it } from "vitest";
import { markServerEntry, startedByServerEntry } from "@/lib/http/server-entry";
import { AUTH_BODY_LIMIT } from "@/lib/service-auth/limits";
import { proxy } from "@/proxy";
import { configureFile } from "../support/config";
import { captureLog } from "../support/log";

configureFile({ BASE_URL: "http://localhost:3000" });
const log = captureLog();
afterAll(() => log.restore());

/** A POST to /oauth2/token whose body comes in `chunks` of 1 KiB, chunked (no Content-Length); `pulls` counts its reads. */
function chunkedPost(chunks: number): { request: NextRequest; pulls: () => number } {
  let pulled = 0;
  // No chunk is asked for before a reader asks (a high-water mark of 0).
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulled += 1;
        if (pulled > chunks) controller.close();
        else controller.enqueue(new Uint8Array(1024).fill(0x61));
      },
    },
    { highWaterMark: 0 },
  );
  const request = new NextRequest("http://localhost:3000/oauth2/token", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked" },
    body,
    duplex: "half",
  });
  return { request, pulls: () => pulled };
}

const over = Math.ceil(AUTH_BODY_LIMIT / 1024) + 4;

// In this order: server.ts's mark cannot be undone within a process.
describe("proxy.ts's body check", () => {
  it("without server.ts (a bare next start, Vercel): refuses a chunked body as it passes the route's limit, and one declared too large unread", async () => {
    expect(startedByServerEntry()).toBe(false);
    const chunked = chunkedPost(over);
    const refused = await proxy(chunked.request);
    expect(refused.status).toBe(413);
    expect(chunked.pulls()).toBeGreaterThan(AUTH_BODY_LIMIT / 1024);
    expect(chunked.pulls()).toBeLessThanOrEqual(over);

    const declared = new NextRequest("http://localhost:3000/oauth2/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(AUTH_BODY_LIMIT + 1) },
    });
    expect((await proxy(declared)).status).toBe(413);
    // The refusals were observed here, as no node:http observer ran.
    expect(log.linesOf("request").map((line) => [line.route, line.status])).toEqual([
      ["/oauth2/token", 413],
      ["/oauth2/token", 413],
    ]);
  });

  it("under npm start (server.ts's body gate in front): passes the request on without reading or checking its body", async () => {
    markServerEntry();
    const chunked = chunkedPost(over);
    const passed = await proxy(chunked.request);
    expect(passed.status).toBe(200);
    expect(passed.headers.get("x-middleware-next")).toBe("1");
    expect(chunked.pulls()).toBe(0);

    const declared = new NextRequest("http://localhost:3000/oauth2/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(AUTH_BODY_LIMIT + 1) },
    });
    expect((await proxy(declared)).headers.get("x-middleware-next")).toBe("1");
  });
});
