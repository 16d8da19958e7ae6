// Where no server.ts listener is in front (a bare `next start`), lib/server/request-channel.ts observes each request as
// node:http receives it, through the `http.server.request.start` diagnostics channel: one line with the status finally
// sent (a handler that decides late, a client that left), X-Request-Id on the answer, and the route files' wrapper and
// proxy.ts stand down (lib/http/observe.ts). Before any request was seen that way, they observe instead: the fallback
// for a host that hands Next its requests other than through a node:http server.
import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { observedAnswer, observedByProxy } from "@/lib/http/observe";
import { observedAtListener } from "@/lib/http/server-entry";
import { observeRequestChannel } from "@/lib/server/request-channel";
import { closeLocally, leaveBeforeAnswer, listenLocally } from "../support/local-server";
import { captureLog } from "../support/log";

const log = captureLog();
afterAll(() => log.restore());
const linesOf = log.linesOf;

describe("with no node:http observer (the fallback)", () => {
  it("the route files' wrapper and proxy.ts write the line and set X-Request-Id", async () => {
    expect(observedAtListener()).toBe(false);
    const answered = await observedAnswer(
      new Request("http://localhost/api/x", { headers: { "X-Request-Id": "fallback-1" } }),
      () => "/api/x",
      () => new Response("ok", { status: 201 }),
    );
    expect(answered.headers.get("x-request-id")).toBe("fallback-1");
    const passed = observedByProxy(new Request("http://localhost/docs"), "/docs", 200, performance.now(), new Response(null));
    expect(passed.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(linesOf("request")).toMatchObject([
      { request_id: "fallback-1", route: "/api/x", status: 201 },
      { route: "/docs", status: 200 },
    ]);
  });
});

describe("observed as node:http receives it (a bare next start)", () => {
  it("writes one line per request with the status sent, sets X-Request-Id, the wrapper and proxy.ts stand down, and a fault stays contained", async () => {
    log.clear();
    observeRequestChannel({
      templateOf: (url) => {
        if (url === "/fault") throw new TypeError("a fault in observing");
        return url?.startsWith("/members/") ? "/members/[slug]" : "(unmatched)";
      },
      traced: false,
    });
    const wrapperAnswers: Response[] = [];
    const server = http.createServer((req, res) => {
      if (req.url === "/never") return;
      // The status is decided after an await, as a page's notFound() is.
      void (async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        wrapperAnswers.push(
          await observedAnswer(
            new Request(`http://localhost${req.url}`),
            () => "/members/[slug]",
            () => new Response(null, { status: 404 }),
          ),
        );
        res.statusCode = 404;
        res.end("not found");
      })();
    });
    const base = await listenLocally(server);
    const missing = await fetch(`${base}/members/nobody?x=1`, { headers: { "X-Request-Id": "channel-1" } });
    await missing.text();
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toBe("channel-1");
    expect(observedAtListener()).toBe(true);
    // The wrapper answered as it is, with no header or line of its own.
    expect(wrapperAnswers[0]!.headers.get("x-request-id")).toBeNull();
    await leaveBeforeAnswer(`${base}/never`);
    // A fault while observing (Node rethrows a subscriber's error as an uncaught exception) costs that request its
    // line, not its answer or the process.
    const faulted = await fetch(`${base}/fault`);
    await faulted.text();
    expect(faulted.status).toBe(404);
    await closeLocally(server);
    expect(linesOf("request")).toMatchObject([
      { request_id: "channel-1", method: "GET", route: "/members/[slug]", status: 404 },
      { route: "(unmatched)", status: 499 },
    ]);
    expect(linesOf("request")).toHaveLength(2);
    expect(linesOf("error")).toMatchObject([{ level: "error", context: "request observation", error_name: "TypeError" }]);
  });
});
