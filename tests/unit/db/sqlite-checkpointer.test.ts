// The SQLite checkpoint worker (lib/db/sqlite-checkpointer.ts): the log reaches the database file without
// the writing connection checkpointing, and the app connection's own checkpoint becomes the backstop.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BACKSTOP_PAGES, RESTART_PAGES, checkpointerRunsFor, startSqliteCheckpointer, type Checkpointer } from "@/lib/db/sqlite-checkpointer";
import { openSqliteDatabase } from "@/lib/db/connection";
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

  /** The first bytes of a file, read without opening it through SQLite. */
  const firstBytes = (filePath: string, length: number): Buffer => {
    const bytes = Buffer.alloc(length);
    const fd = fs.openSync(filePath, "r");
    try {
      fs.readSync(fd, bytes, 0, length, 0);
    } finally {
      fs.closeSync(fd);
    }
    return bytes;
  };

  /** The log's checkpoint sequence number (WAL header, bytes 12–15): it goes up each time the log restarts. */
  const logRestarts = (file: string): number => firstBytes(`${file}-wal`, 32).readUInt32BE(12);

  /**
   * Frames in the log and frames copied into the database, read from the shared-memory index (the WAL-index
   * header's mxFrame at byte 16, the checkpoint info's nBackfill at byte 96, native little-endian) without
   * running a checkpoint, which would copy the rest itself.
   */
  const logState = (file: string): { frames: number; copied: number } => {
    const index = firstBytes(`${file}-shm`, 100);
    return { frames: index.readUInt32LE(16), copied: index.readUInt32LE(96) };
  };

  it("under sustained writes each hold finds the log fully copied, nothing written meanwhile, and the next write restarts it", async () => {
    const file = tempFile();
    const db = writerWithoutCheckpoints(file);
    const gate = new ConnectionGate();
    const fullyCopiedAtRelease: boolean[] = [];
    let heldWhileWriting = false;
    checkpointer = startSqliteCheckpointer(file, {
      intervalMs: 5,
      restartPages: 200,
      holdConnection: async () => {
        const release = await gate.acquire("checkpoint");
        return () => {
          // Still held: the worker's last pass is done and nothing has been written since.
          const state = logState(file);
          fullyCopiedAtRelease.push(state.frames > 0 && state.frames === state.copied);
          release();
        };
      },
    });
    try {
      const restartsBefore = logRestarts(file);
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      // The app's way of writing: small transactions behind the gate, one per event-loop iteration, without end.
      const deadline = Date.now() + 20_000;
      let writes = 0;
      while (fullyCopiedAtRelease.length < 3 && Date.now() < deadline) {
        const release = gate.tryAcquire("raw") ?? (await gate.acquire("raw"));
        insert.run(randomBytes(2048).toString("hex")); // 4 KB of text: two pages of log
        if (gate.holder !== "raw") heldWhileWriting = true;
        release();
        writes++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      // One more write after the last hold: it restarts the log.
      insert.run("after the last hold");
      expect(fullyCopiedAtRelease).toEqual([true, true, true]);
      expect(heldWhileWriting).toBe(false);
      expect(logRestarts(file) - restartsBefore).toBeGreaterThanOrEqual(3);
      expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: writes + 1 });
    } finally {
      await checkpointer.stop();
      db.close();
    }
  });

  /** A worker whose hold request is only counted (the app holds nothing). */
  function countingHolds(file: string, restartPages: number): () => number {
    let holds = 0;
    checkpointer = startSqliteCheckpointer(file, {
      intervalMs: 5,
      restartPages,
      holdConnection: async () => {
        holds++;
        return null;
      },
    });
    return () => holds;
  }

  it("never asks for a hold while the log stays below the mark", async () => {
    const file = tempFile();
    const db = writerWithoutCheckpoints(file);
    const holds = countingHolds(file, 1_000_000);
    try {
      writeAboutOneMegabyte(db);
      await new Promise((r) => setTimeout(r, 200));
      expect(holds()).toBe(0);
    } finally {
      db.close();
    }
  });

  it("does not ask for hold after hold while a reader elsewhere keeps the log from restarting", async () => {
    const file = tempFile();
    const db = writerWithoutCheckpoints(file);
    const reader = new Database(file, { readonly: true });
    const holds = countingHolds(file, 200);
    try {
      writeAboutOneMegabyte(db); // ~500 pages
      // A read transaction on the snapshot of now: no checkpoint can pass it, so the log cannot restart.
      reader.exec("BEGIN");
      reader.prepare("SELECT count(*) AS n FROM t").get();
      expect(await eventually(() => holds() > 0)).toBe(true);
      // A worker tick during the write may have measured the log half-written: the log grew by a mark after that
      // measure, so a second ask is due. Wait until the asks settle (the log no longer grows), then count.
      let asked = holds();
      for (let settled = false; !settled;) {
        await new Promise((r) => setTimeout(r, 100));
        settled = holds() === asked;
        asked = holds();
      }
      await new Promise((r) => setTimeout(r, 300)); // ~60 ticks with the log still over the mark
      expect(holds()).toBe(asked);
      writeAboutOneMegabyte(db);
      writeAboutOneMegabyte(db); // grown by more than the mark again: one more try
      expect(await eventually(() => holds() > asked)).toBe(true);
    } finally {
      reader.close();
      db.close();
    }
  });

  it("the app connection raises its automatic checkpoint to the backstop only while a worker runs for its file", async () => {
    const readAutocheckpoint = async (file: string): Promise<number> => {
      const client = openSqliteDatabase(`file:${file}`);
      try {
        return Number(client.pragma("wal_autocheckpoint", { simple: true }));
      } finally {
        client.close();
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

  it("never dies of an uncaught error: a file it cannot open ends it, reported once, and the app keeps its own checkpoint", async () => {
    const missing = tempFile(); // never created: the worker opens with fileMustExist
    const failures: string[] = [];
    checkpointer = startSqliteCheckpointer(missing, { intervalMs: 10, onFailure: (what, message) => void failures.push(`${what}: ${message}`) });
    expect(checkpointerRunsFor(missing)).toBe(true);
    // The thread ends by itself; the app forgets it, so a connection opened now keeps SQLite's own checkpoint.
    expect(await eventually(() => !checkpointerRunsFor(missing))).toBe(true);
    // It told the app why (server.ts logs it), and no uncaught error reached the app as the worker's "error" event.
    expect(failures).toEqual([expect.stringMatching(/^opening the database: /)]);
  });
});
