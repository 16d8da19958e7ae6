// Issue 13: /a2a answers every failure as a JSON-RPC error in our own words, never the exception's text: an
// unreachable database is -32011 with HTTP 503 and Retry-After, anything else -32603 (the detail is logged).
import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "@/lib/clock";
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { DbTaskStore } from "@/lib/a2a/task-store";
import { apiRequest, webResponse } from "../../support/api";
import { captureLog } from "../../support/log";

const clock = new ManualClock(Date.UTC(2026, 4, 1, 8, 0, 0));
const send = (id: number) =>
  new Request("http://localhost:3000/a2a", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tasks/get", params: { id: "0195f3c0-0000-7000-8000-000000000000" } }),
  });

/** The task store fails as the real one does: it keeps the first failure for the route, and throws it. */
function failStore(error: Error): void {
  vi.spyOn(DbTaskStore.prototype, "load").mockImplementation(async function (this: DbTaskStore) {
    this.storageError ??= error;
    throw error;
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("A2A failures", () => {
  it("a database that cannot be reached: JSON-RPC -32011, HTTP 503, Retry-After", async () => {
    failStore(Object.assign(new Error("connect ECONNREFUSED 10.1.2.3:5432"), { code: "ECONNREFUSED" }));
    const res = webResponse(await handleA2aRequest(apiRequest(send(1)), clock));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32011, message: "Temporarily unavailable: retry after 5 seconds.", data: { retry_after: 5 } } });
  });

  it("any other failure: JSON-RPC -32603 without the exception's text, which goes to the log", async () => {
    const log = captureLog();
    failStore(new Error("Invalid `prisma.a2ATask.findUnique()` invocation in /work/lib/a2a/task-store.ts:25:7"));
    const res = webResponse(await handleA2aRequest(apiRequest(send(2)), clock));
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error: the service failed to handle this request." } });
    expect(body).not.toMatch(/prisma|task-store/);
    log.restore();
    expect(
      log
        .linesOf("error")
        .map((line) => String(line.stack))
        .join("\n"),
    ).toContain("prisma.a2ATask.findUnique");
  });
});
