// The SQLite checkpoint worker (lib/db/sqlite-checkpointer.ts): the log reaches the database file without
// the writing connection checkpointing, and the app connection's own checkpoint becomes the backstop.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BACKSTOP_PAGES, RESTART_PAGES, checkpointerRunsFor, startSqliteCheckpointer, type Checkpointer } from "@/lib/db/sqlite-checkpointer";
import { createDb } from "@/lib/db";
import { ConnectionGate } from "@/lib/db/sql/gate";

const files: string[] = [];
let checkpointer: Checkpointer | undefined;

function tempFile(): string {
  const file = path.join(os.tmpdir(), `agent-gate-ckpt-${randomBytes(4).toString("hex")}.db`);
  files.push(file);
  return file;
}

afterEach(async () => {
  await checkpointer?.stop();
  checkpointer = undefined;
  for (const file of files.splice(0)) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
});

/** A writer that never checkpoints itself: whatever reaches the database file was copied by someone else. */
function writerWithoutCheckpoints(file: string): Database.Database {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  return db;
}

function writeAboutOneMegabyte(db: Database.Database): void {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < 256; i++) insert.run(randomBytes(2048).toString("hex"));
}

async function eventually(condition: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return condition();
}

describe("SQLite checkpoint worker", () => {
  it("copies the log into the database file while the writer never checkpoints", async () => {
    const file = tempFile();
    const db = writerWithoutCheckpoints(file);
    try {
      const before = fs.statSync(file).size;
      checkpointer = startSqliteCheckpointer(file, { intervalMs: 10 });
      writeAboutOneMegabyte(db);
      expect(await eventually(() => fs.statSync(file).size - before > 512 * 1024)).toBe(true);
      expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 256 });
    } finally {
      db.close();
    }
  });

  it("also checkpoints a file that was switched to WAL mode after the worker opened it (a fresh database)", async () => {
    const file = tempFile();
    new Database(file).close(); // rollback-journal mode, as prisma migrate leaves a new file
    checkpointer = startSqliteCheckpointer(file, { intervalMs: 10 });
    await new Promise((r) => setTimeout(r, 50)); // the worker has opened and ticked on it
    const db = writerWithoutCheckpoints(file);
    try {
      const before = fs.statSync(file).size;
      writeAboutOneMegabyte(db);
      expect(await eventually(() => fs.statSync(file).size - before > 512 * 1024)).toBe(true);
    } finally {
      db.close();
    }
  });

  it("without it nothing reaches the database file (control)", async () => {
    const file = tempFile();
    const db = writerWithoutCheckpoints(file);
    try {
      const before = fs.statSync(file).size;
      writeAboutOneMegabyte(db);
      await new Promise((r) => setTimeout(r, 300));
      expect(fs.statSync(file).size - before).toBeLessThan(64 * 1024);
    } finally {
      db.close();
    }
  });

  /**
   * Writes ~24 MB of log in small transactions, each behind the gate and each in its own event-loop
   * iteration (as the app writes); returns the log file's final size and how often the worker asked to hold.
   */
  async function sustainedWrites(hold: boolean): Promise<{ walBytes: number; holds: number; heldWhileWriting: boolean }> {
    const file = tempFile();
    const db = writerWithoutCheckpoints(file);
    const gate = new ConnectionGate();
    let holds = 0;
    let heldWhileWriting = false;
    checkpointer = startSqliteCheckpointer(file, {
      intervalMs: 5,
      restartPages: 200,
      holdConnection: async () => {
        holds++;
        return hold ? (gate.tryAcquire("checkpoint") ?? gate.acquire("checkpoint")) : null;
      },
    });
    try {
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      for (let i = 0; i < 2000; i++) {
        const release = gate.tryAcquire("raw") ?? (await gate.acquire("raw"));
        insert.run(randomBytes(2048).toString("hex")); // 4 KB of text: two pages of log
        if (gate.holder !== "raw") heldWhileWriting = true;
        release();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 2000 });
      return { walBytes: fs.statSync(`${file}-wal`).size, holds, heldWhileWriting };
    } finally {
      await checkpointer.stop();
      db.close();
    }
  }

  it("under sustained writes the log restarts at the worker's hold, though the writer never checkpoints", async () => {
    const { walBytes, holds, heldWhileWriting } = await sustainedWrites(true);
    expect(holds).toBeGreaterThan(0);
    expect(heldWhileWriting).toBe(false);
    // ~6,000 pages of log were written (the control keeps all of them); one that restarts stays a fraction.
    expect(walBytes).toBeLessThan(3000 * 4096);
  });

  it("without the hold the log does not restart under the same writes (control)", async () => {
    const { walBytes, holds } = await sustainedWrites(false);
    expect(holds).toBeGreaterThan(0);
    expect(walBytes).toBeGreaterThan(5000 * 4096);
  });

  it("the app connection raises its automatic checkpoint to the backstop only while a worker runs for its file", async () => {
    const readAutocheckpoint = async (file: string): Promise<number> => {
      const client = createDb(`file:${file}`);
      try {
        const rows = await client.$queryRawUnsafe<{ wal_autocheckpoint: bigint | number }[]>("PRAGMA wal_autocheckpoint");
        return Number(rows[0]?.wal_autocheckpoint);
      } finally {
        await client.$disconnect();
      }
    };
    const plain = tempFile();
    new Database(plain).close();
    expect(await readAutocheckpoint(plain)).toBe(1000);

    const watched = tempFile();
    new Database(watched).close();
    checkpointer = startSqliteCheckpointer(watched);
    expect(checkpointerRunsFor(watched)).toBe(true);
    expect(await readAutocheckpoint(watched)).toBe(BACKSTOP_PAGES);
    expect(BACKSTOP_PAGES).toBeGreaterThan(RESTART_PAGES);
    await checkpointer.stop();
    expect(checkpointerRunsFor(watched)).toBe(false);
  });
});
