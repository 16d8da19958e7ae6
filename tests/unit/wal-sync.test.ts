// lib/db/sql/wal-sync.ts: a commit's caller waits for a sync of the log that started after its commit; callers
// that arrive while one runs share the next one; a failed sync fails its callers only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { walFileSync, walPathOf, WalSync } from "@/lib/db/sql/wal-sync";

/** A sync that finishes when the test says so; `started` counts the syncs begun. */
function manualSync() {
  const pending: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  let started = 0;
  const sync = () =>
    new Promise<void>((resolve, reject) => {
      started += 1;
      pending.push({ resolve, reject });
    });
  return { sync, started: () => started, finish: () => pending.shift()!.resolve(), fail: (error: unknown) => pending.shift()!.reject(error) };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("WalSync", () => {
  it("starts a sync at once when none runs, and settles the caller with it", async () => {
    const log = manualSync();
    const wal = new WalSync(log.sync);
    let done = false;
    const waiting = wal.afterCommit().then(() => (done = true));
    expect(log.started()).toBe(1);
    await flush();
    expect(done).toBe(false);
    log.finish();
    await waiting;
    expect(done).toBe(true);
  });

  it("never settles a caller with a sync that began before its call: callers meanwhile share the next one", async () => {
    const log = manualSync();
    const wal = new WalSync(log.sync);
    const first = wal.afterCommit();
    const order: string[] = [];
    const second = wal.afterCommit().then(() => order.push("second"));
    const third = wal.afterCommit().then(() => order.push("third"));
    expect(log.started()).toBe(1);
    log.finish();
    await first;
    await flush();
    expect(order).toEqual([]);
    // The second and third callers' sync began after the first finished: one for both.
    expect(log.started()).toBe(2);
    log.finish();
    await Promise.all([second, third]);
    expect(order).toEqual(["second", "third"]);
    expect(log.started()).toBe(2);
  });

  it("fails the callers of a failed sync only; the next caller gets a fresh one", async () => {
    const log = manualSync();
    const wal = new WalSync(log.sync);
    const failed = wal.afterCommit();
    log.fail(new Error("EIO"));
    await expect(failed).rejects.toThrow("EIO");
    const next = wal.afterCommit();
    expect(log.started()).toBe(2);
    log.finish();
    await expect(next).resolves.toBeUndefined();
  });
});

describe("walFileSync", () => {
  it("syncs the file next to the database, and fails (then retries) while it is missing", async () => {
    const database = path.join(os.tmpdir(), `agent-gate-walsync-${randomBytes(4).toString("hex")}.db`);
    const wal = walPathOf(database);
    expect(wal).toBe(`${database}-wal`);
    const log = walFileSync(wal);
    try {
      await expect(log.sync()).rejects.toThrow(/ENOENT/);
      fs.writeFileSync(wal, "frames");
      await expect(log.sync()).resolves.toBeUndefined();
      await expect(log.sync()).resolves.toBeUndefined();
    } finally {
      log.close();
      fs.rmSync(wal, { force: true });
    }
  });
});
