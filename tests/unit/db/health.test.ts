// Issue #17 item 1: alive() needs nothing; ready() needs the database within 1 s, every migration applied
// and the signing keys; a probe sees the database go down and come back.
import net from "node:net";
import { describe, expect, it, vi } from "vitest";
import { holdSqliteConnection, sqlProvider } from "@/lib/db";
import { alive, expectedMigrations, healthReply, ready, READY_CACHE_MS, recentReady } from "@/lib/operator/health";
import { getConfig } from "@/lib/config";
import { useTestConfigAfterReset } from "../../support/config";

/** A TCP relay to PostgreSQL that can be cut and restored (the database "down" and "back"). */
function relay(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on("close", () => sockets.delete(socket));
          socket.on("error", () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server!.close(() => resolve());
    });
  return { listen, cut, url: () => Object.assign(new URL(target.toString()), { hostname: "127.0.0.1", port: String(port) }).toString() };
}

/** The shared-state store of this run's database when nothing forces one (lib/config/shared-state.ts). */
const store = (): string => (sqlProvider() === "sqlite" ? "memory" : "postgres");

describe("health", () => {
  it("alive answers without the database; ready answers ok with every check named", async () => {
    expect(alive()).toEqual({ status: 200, body: { status: "ok", checks: { process: "ok" } } });
    expect(await ready()).toEqual({
      status: 200,
      body: { status: "ok", checks: { database: "ok", migrations: "ok", signing_keys: "ok", shared_state: "ok" }, shared_state_store: store() },
    });
    const reply = healthReply(await ready());
    expect(reply.headers["cache-control"]).toBe("no-store");
    expect(reply.headers["content-type"]).toBe("application/json");
    expect(expectedMigrations(sqlProvider()).length).toBeGreaterThanOrEqual(2);
  });

  it("sees the database go down (no answer within 1 s) and come back", async () => {
    if (sqlProvider() === "sqlite") {
      // SQLite's one connection held (as a checkpoint hold would) past the 1 s budget: not ready, then ready.
      const release = await holdSqliteConnection();
      const whileHeld = ready();
      await new Promise((resolve) => setTimeout(resolve, 1200));
      release!();
      expect(await whileHeld).toMatchObject({ status: 503, body: { status: "fail", checks: { database: "fail", migrations: "not_checked" } } });
      expect((await ready()).status).toBe(200);
      return;
    }
    // PostgreSQL behind a relay: a new process (module state and configuration fresh) whose database is cut and restored.
    const link = relay(new URL(getConfig().databaseUrl));
    await link.listen();
    vi.resetModules();
    await useTestConfigAfterReset({ DATABASE_URL: link.url() });
    const health = await import("@/lib/operator/health");
    expect((await health.ready()).status).toBe(200);
    await link.cut();
    const down = await health.ready();
    expect(down).toMatchObject({ status: 503, body: { status: "fail", checks: { database: "fail" } } });
    await link.listen();
    let back = await health.ready();
    for (let i = 0; i < 10 && back.status !== 200; i++) back = await health.ready();
    expect(back).toEqual({
      status: 200,
      body: { status: "ok", checks: { database: "ok", migrations: "ok", signing_keys: "ok", shared_state: "ok" }, shared_state_store: "postgres" },
    });
    await link.cut();
    (await import("@/lib/db")).closeConnection().catch(() => undefined);
  });
});

describe("/readyz under a flood of probes (issue 41 item 5)", () => {
  it("reuses one readiness answer for a second: probes within it share one database round, a later probe runs its own", async () => {
    const first = recentReady(1_000_000);
    expect(recentReady(1_000_000 + READY_CACHE_MS - 1)).toBe(first);
    expect((await first).status).toBe(200);
    const later = recentReady(1_000_000 + READY_CACHE_MS);
    expect(later).not.toBe(first);
    expect((await later).status).toBe(200);
  });
});
