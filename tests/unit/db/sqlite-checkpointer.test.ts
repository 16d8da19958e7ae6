// The SQLite checkpoint worker (lib/db/sqlite-checkpointer.ts): the log reaches the database file without
// the writing connection checkpointing, and the app connection's own checkpoint becomes the backstop.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { BACKSTOP_PAGES, checkpointerRunsFor, startSqliteCheckpointer, type Checkpointer } from "@/lib/db/sqlite-checkpointer";
import { createDb } from "@/lib/db";

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
      checkpointer = startSqliteCheckpointer(file, 10);
      writeAboutOneMegabyte(db);
      expect(await eventually(() => fs.statSync(file).size - before > 512 * 1024)).toBe(true);
      expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 256 });
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
    await checkpointer.stop();
    expect(checkpointerRunsFor(watched)).toBe(false);
  });
});
