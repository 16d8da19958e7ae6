// Issue 41 item 7: X-Forwarded-For is believed only from a configured proxy address. The server trusts one hop
// from 127.0.0.2 only (TRUSTED_PROXY=1, TRUSTED_PROXY_ADDRESSES=127.0.0.2); clients bind their socket to
// 127.0.0.2 (the proxy) or 127.0.0.3 (a client reaching the port directly). The caller key shows in the request's
// log line (client_ip) and in which /ask budget a request spends.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../support/server";

const PROXY = "127.0.0.2";
const DIRECT = "127.0.0.3";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ label: "trusted-proxy", env: { TRUSTED_PROXY: "1", TRUSTED_PROXY_ADDRESSES: PROXY, RATE_LIMIT_ASK_PER_MINUTE: "2" } });
});
afterAll(async () => {
  await server?.stop();
});

/** GET /ask from `localAddress` with a made-up X-Forwarded-For; the status and the request id the server gave. */
function ask(localAddress: string, forwardedFor: string, extraHeaders: Record<string, string> = {}): Promise<{ status: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: "127.0.0.1", port: server.port, path: "/ask?query=token%20polling", localAddress, agent: false, headers: { "x-forwarded-for": forwardedFor, ...extraHeaders } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers["x-request-id"]) }));
        res.on("error", reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

/** The client_ip of the request's log line, once it is written (bounded wait). */
async function loggedClientIp(requestId: string): Promise<string | undefined> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    for (const line of server.output().split("\n")) {
      if (!line.includes(requestId)) continue;
      try {
        const entry = JSON.parse(line) as { type?: string; request_id?: string; client_ip?: string };
        if (entry.type === "request" && entry.request_id === requestId) return entry.client_ip;
      } catch {
        // not a JSON line
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

describe("TRUSTED_PROXY=1 believes X-Forwarded-For only from TRUSTED_PROXY_ADDRESSES", () => {
  it("a direct client's made-up X-Forwarded-For is ignored: its own address is the caller, one budget for every forgery", async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ask(DIRECT, `198.51.100.${i + 1}`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(await loggedClientIp(answers[0]!.requestId)).toBe(DIRECT);
    expect(await loggedClientIp(answers[1]!.requestId)).toBe(DIRECT);
  });

  it("from the configured proxy, the forwarded address is the caller: each its own budget", async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ask(PROXY, `203.0.113.${i + 1}`));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await loggedClientIp(answers[0]!.requestId)).toBe("203.0.113.1");
    expect(await loggedClientIp(answers[2]!.requestId)).toBe("203.0.113.3");
  });
});

describe("the caller key the listener stamps (x-agent-gate-caller) is its own", () => {
  it("a client-sent copy names no bucket: the direct client is still its own caller, and another's budget is untouched", async () => {
    const forged = { "x-agent-gate-caller": "192.0.2.77" };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ask("127.0.0.4", "198.51.100.9", forged));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(await loggedClientIp(answers[0]!.requestId)).toBe("127.0.0.4");
  });
});
