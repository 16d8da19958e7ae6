// Group commit (lib/db/sql/group-commit.ts): raw transactions started in one event-loop iteration share
// one SQLite transaction, each in its own savepoint, and settle only after the shared COMMIT.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionGate } from "@/lib/db/sql/gate";
import { GroupRolledBackError, joinBatch, runInGroup, type GroupBatch, type GroupConnection } from "@/lib/db/sql/group-commit";

const opened: { file: string; databases: Database.Database[] }[] = [];

afterEach(() => {
  for (const { file, databases } of opened.splice(0)) {
    for (const database of databases) database.close();
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
  }
});

/** A WAL database with one table, the connection as group commit drives it, a log of control statements, and a second connection to look from. */
function setup(options: { failOn?: string; afterCommit?: () => Promise<void> } = {}) {
  const file = path.join(os.tmpdir(), `agent-gate-group-${randomBytes(4).toString("hex")}.db`);
  const database = new Database(file);
  database.pragma("journal_mode = WAL");
  database.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)");
  const observer = new Database(file, { readonly: true });
  opened.push({ file, databases: [database, observer] });
  const statements: string[] = [];
  const gate = new ConnectionGate();
  const connection: GroupConnection<Database.Database> = {
    gate,
    run: (sql) => {
      statements.push(sql);
      if (sql === options.failOn) throw new Error(`injected failure of ${sql}`);
      database.prepare(sql).run();
    },
    inTransaction: () => database.inTransaction,
    executor: database,
    afterCommit: options.afterCommit,
  };
  const insert = (v: string) => (q: Database.Database) => Promise.resolve(q.prepare("INSERT INTO t (v) VALUES (?)").run(v).lastInsertRowid);
  const committed = () => (observer.prepare("SELECT v FROM t ORDER BY id").all() as { v: string }[]).map((row) => row.v);
  const count = (sql: string) => statements.filter((s) => s === sql).length;
  return { database, connection, gate, insert, committed, count, statements };
}

const nextIteration = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("group commit", () => {
  it("settles its callers only once the log is synced after the COMMIT, and frees the connection before that", async () => {
    let syncs = 0;
    let finishSync: (() => void) | undefined;
    const afterCommit = () => {
      syncs += 1;
      return new Promise<void>((resolve) => (finishSync = resolve));
    };
    const { connection, gate, insert, committed, count } = setup({ afterCommit });
    let settled = false;
    const pending = Promise.all(["a", "b"].map((v) => runInGroup(connection, insert(v)))).then((ids) => {
      settled = true;
      return ids;
    });
    while (count("COMMIT") === 0) await nextIteration();
    // Committed and visible, the connection free for the next group, but nobody answered before the sync.
    expect(committed()).toEqual(["a", "b"]);
    expect(gate.holder).toBeNull();
    await nextIteration();
    expect(syncs).toBe(1);
    expect(settled).toBe(false);
    finishSync!();
    expect(await pending).toEqual([1, 2]);
  });

  it("rejects the group's callers when the sync after its COMMIT fails", async () => {
    const failure = new Error("EIO");
    const { connection, insert } = setup({ afterCommit: () => Promise.reject(failure) });
    const outcomes = await Promise.allSettled(["a", "b"].map((v) => runInGroup(connection, insert(v))));
    expect(outcomes).toEqual([
      { status: "rejected", reason: failure },
      { status: "rejected", reason: failure },
    ]);
  });

  it("shares one BEGIN and one COMMIT among the transactions of one iteration, each after the first in a savepoint", async () => {
    const { connection, insert, committed, count } = setup();
    const results = await Promise.all(["a", "b", "c", "d", "e"].map((v) => runInGroup(connection, insert(v))));
    expect(results).toEqual([1, 2, 3, 4, 5]);
    expect(count("BEGIN IMMEDIATE")).toBe(1);
    // The first needs none: nobody else's writes are in the transaction yet.
    expect(count("SAVEPOINT group_job")).toBe(4);
    expect(count("RELEASE group_job")).toBe(4);
    expect(count("COMMIT")).toBe(1);
    expect(committed()).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("settles a caller only after the COMMIT: another connection sees its write by then, not before", async () => {
    const { database, connection, gate, insert, committed } = setup();
    let settled = false;
    const pending = runInGroup(connection, insert("a")).then((id) => {
      settled = true;
      expect(committed()).toEqual(["a"]);
      return id;
    });
    // The job has run (microtasks) but the group is still open: nothing committed, nobody answered.
    await Promise.resolve();
    await Promise.resolve();
    expect(database.inTransaction).toBe(true);
    expect(gate.holder).toBe("raw");
    expect(committed()).toEqual([]);
    expect(settled).toBe(false);
    await pending;
    expect(gate.holder).toBeNull();
  });

  it("a failing transaction rolls back its own statements only; the others commit", async () => {
    const { connection, insert, committed, count } = setup();
    const failing = (q: Database.Database) => {
      q.prepare("INSERT INTO t (v) VALUES ('doomed')").run();
      return Promise.reject(new Error("refused"));
    };
    const outcomes = await Promise.allSettled([
      runInGroup(connection, insert("a")),
      runInGroup(connection, failing),
      runInGroup(connection, insert("a")), // violates UNIQUE: rolled back, rejects
      runInGroup(connection, insert("b")),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error("refused"));
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(count("ROLLBACK TO group_job")).toBe(2);
    expect(count("COMMIT")).toBe(1);
    expect(committed()).toEqual(["a", "b"]);
  });

  it("a failing first transaction rolls the transaction back whole; the next one begins anew and commits", async () => {
    const { connection, insert, committed, count } = setup();
    const failing = (q: Database.Database) => {
      q.prepare("INSERT INTO t (v) VALUES ('doomed')").run();
      return Promise.reject(new Error("refused"));
    };
    const outcomes = await Promise.allSettled([runInGroup(connection, failing), runInGroup(connection, insert("b"))]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "fulfilled"]);
    expect(count("ROLLBACK")).toBe(1);
    expect(count("BEGIN IMMEDIATE")).toBe(2);
    expect(count("COMMIT")).toBe(1);
    expect(committed()).toEqual(["b"]);
  });

  it("when a failed transaction cannot be rolled back to its savepoint, nothing of the group is committed", async () => {
    const { database, connection, insert, committed } = setup({ failOn: "ROLLBACK TO group_job" });
    const failing = (q: Database.Database) => {
      q.prepare("INSERT INTO t (v) VALUES ('doomed')").run();
      return Promise.reject(new Error("refused"));
    };
    const outcomes = await Promise.allSettled([runInGroup(connection, insert("a")), runInGroup(connection, failing)]);
    expect(outcomes[0]).toEqual({ status: "rejected", reason: expect.any(GroupRolledBackError) });
    expect(outcomes[1]).toEqual({ status: "rejected", reason: new Error("refused") });
    expect(database.inTransaction).toBe(false);
    expect(committed()).toEqual([]);
  });

  it("transactions of different iterations commit separately", async () => {
    const { connection, insert, committed, count } = setup();
    await runInGroup(connection, insert("a"));
    await nextIteration();
    await runInGroup(connection, insert("b"));
    expect(count("BEGIN IMMEDIATE")).toBe(2);
    expect(count("COMMIT")).toBe(2);
    expect(committed()).toEqual(["a", "b"]);
  });

  it("a transaction that awaits real I/O keeps the group open; a later caller waits for the next group", async () => {
    const { connection, insert, committed, count } = setup();
    const slow = async (q: Database.Database) => {
      q.prepare("INSERT INTO t (v) VALUES ('slow')").run();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return "slow done";
    };
    const first = runInGroup(connection, slow);
    await nextIteration(); // the group is closing now, waiting for `slow`
    const second = runInGroup(connection, insert("after"));
    expect(await first).toBe("slow done");
    expect(committed()).toEqual(["slow"]);
    await second;
    expect(committed()).toEqual(["slow", "after"]);
    expect(count("COMMIT")).toBe(2);
  });

  it("when the COMMIT fails every finished transaction of the group rejects, nothing is written and the gate is free", async () => {
    const { database, connection, gate, insert, committed } = setup({ failOn: "COMMIT" });
    const outcomes = await Promise.allSettled([runInGroup(connection, insert("a")), runInGroup(connection, insert("b"))]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/injected failure of COMMIT/);
    expect(database.inTransaction).toBe(false);
    expect(committed()).toEqual([]);
    expect(gate.holder).toBeNull();
  });

  it("when SQLite drops the whole transaction mid-group, the transactions before reject and the next ones still commit", async () => {
    const { connection, insert, committed } = setup();
    // Stands in for an I/O or disk-full error, after which SQLite has rolled everything back.
    const dropsEverything = (q: Database.Database) => {
      q.prepare("ROLLBACK").run();
      return Promise.resolve("dropped");
    };
    const outcomes = await Promise.allSettled([runInGroup(connection, insert("lost")), runInGroup(connection, dropsEverything), runInGroup(connection, insert("kept"))]);
    expect(outcomes[0]).toEqual({ status: "rejected", reason: expect.any(GroupRolledBackError) });
    expect(outcomes[1].status).toBe("rejected"); // its savepoint is gone with the transaction
    expect(outcomes[2]).toEqual({ status: "fulfilled", value: expect.any(Number) });
    expect(committed()).toEqual(["kept"]);
  });

  it("callers that wait for another holder of the gate form one group when it is released, in arrival order", async () => {
    const { connection, gate, insert, committed, count } = setup();
    const release = gate.tryAcquire("checkpoint");
    expect(release).not.toBeNull();
    const order: string[] = [];
    const writes = ["a", "b"].map((v) => runInGroup(connection, insert(v)).then(() => order.push(v)));
    await nextIteration();
    const later = ["c", "d"].map((v) => runInGroup(connection, insert(v)).then(() => order.push(v)));
    await nextIteration();
    expect(committed()).toEqual([]);
    release?.();
    await Promise.all([...writes, ...later]);
    expect(order).toEqual(["a", "b", "c", "d"]);
    expect(committed()).toEqual(["a", "b", "c", "d"]);
    // One group for all four: a queue on the gate would drain one transaction per iteration.
    expect(count("BEGIN IMMEDIATE")).toBe(1);
    expect(count("COMMIT")).toBe(1);
  });
});

describe("group commit batches", () => {
  /** A batch that inserts every item in one statement and answers each item with its row id; it notes each call's items. */
  function insertBatch(calls: string[][], options: { failWith?: Error; results?: (ids: number[]) => number[] } = {}): GroupBatch<Database.Database, string, number> {
    return {
      run: (q, items) => {
        calls.push([...items]);
        const inserted = items.map((v) => Number(q.prepare("INSERT INTO t (v) VALUES (?)").run(v).lastInsertRowid));
        if (options.failWith) return Promise.reject(options.failWith);
        return Promise.resolve(options.results ? options.results(inserted) : inserted);
      },
    };
  }

  it("runs once for the items of one iteration, after the group's jobs and before its COMMIT; each caller gets its own result after the COMMIT", async () => {
    const { connection, insert, committed, count, statements } = setup();
    const calls: string[][] = [];
    const batch = insertBatch(calls);
    const settledBeforeCommit: boolean[] = [];
    const results = await Promise.all([
      joinBatch(connection, batch, "x").then((id) => (settledBeforeCommit.push(count("COMMIT") === 0), id)),
      runInGroup(connection, insert("a")),
      joinBatch(connection, batch, "y"),
      runInGroup(connection, insert("b")),
      joinBatch(connection, batch, "z"),
    ]);
    expect(calls).toEqual([["x", "y", "z"]]);
    // The jobs ran first (ids 1, 2), then the batch's one call (3, 4, 5).
    expect(results).toEqual([3, 1, 4, 2, 5]);
    expect(committed()).toEqual(["a", "b", "x", "y", "z"]);
    expect(settledBeforeCommit).toEqual([false]);
    expect(count("BEGIN IMMEDIATE")).toBe(1);
    expect(count("COMMIT")).toBe(1);
    expect(statements.slice(-3)).toEqual(["SAVEPOINT group_batch", "RELEASE group_batch", "COMMIT"]);
  });

  it("opens a group of its own when no job runs, and items of different iterations are different calls", async () => {
    const { connection, committed, count } = setup();
    const calls: string[][] = [];
    const batch = insertBatch(calls);
    await Promise.all([joinBatch(connection, batch, "a"), joinBatch(connection, batch, "b")]);
    await nextIteration();
    await joinBatch(connection, batch, "c");
    expect(calls).toEqual([["a", "b"], ["c"]]);
    expect(committed()).toEqual(["a", "b", "c"]);
    expect(count("COMMIT")).toBe(2);
  });

  it("a batch that throws rolls back its own statements and rejects its own callers; the jobs and other batches commit", async () => {
    const { connection, insert, committed } = setup();
    const failing = insertBatch([], { failWith: new Error("batch refused") });
    const working = insertBatch([]);
    const outcomes = await Promise.allSettled([
      runInGroup(connection, insert("a")),
      joinBatch(connection, failing, "doomed-1"),
      joinBatch(connection, working, "kept"),
      joinBatch(connection, failing, "doomed-2"),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error("batch refused"));
    expect(committed()).toEqual(["a", "kept"]);
  });

  it("a batch whose statement fails (UNIQUE) writes none of its items", async () => {
    const { connection, insert, committed } = setup();
    const outcomes = await Promise.allSettled([runInGroup(connection, insert("a")), joinBatch(connection, insertBatch([]), "b"), joinBatch(connection, insertBatch([]), "a")]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(committed()).toEqual(["a", "b"]);
  });

  it("a batch that answers the wrong number of results is a failure: its callers reject, its writes are rolled back", async () => {
    const { connection, committed } = setup();
    const short = insertBatch([], { results: (ids) => ids.slice(1) });
    const outcomes = await Promise.allSettled([joinBatch(connection, short, "a"), joinBatch(connection, short, "b")]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/1 results for 2 items/);
    expect(committed()).toEqual([]);
  });

  it("when the COMMIT fails, the batch's callers reject with the jobs' and the gate is free", async () => {
    const { connection, gate, insert, committed } = setup({ failOn: "COMMIT" });
    const outcomes = await Promise.allSettled([runInGroup(connection, insert("a")), joinBatch(connection, insertBatch([]), "b")]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/injected failure of COMMIT/);
    expect(committed()).toEqual([]);
    expect(gate.holder).toBeNull();
  });

  it("when a failed batch cannot be rolled back to its savepoint, nothing of the group is committed", async () => {
    const { database, connection, insert, committed } = setup({ failOn: "ROLLBACK TO group_batch" });
    const outcomes = await Promise.allSettled([runInGroup(connection, insert("a")), joinBatch(connection, insertBatch([], { failWith: new Error("batch refused") }), "b")]);
    expect(outcomes[0]).toEqual({ status: "rejected", reason: expect.any(GroupRolledBackError) });
    expect(outcomes[1]).toEqual({ status: "rejected", reason: new Error("batch refused") });
    expect(database.inTransaction).toBe(false);
    expect(committed()).toEqual([]);
  });
});
