// Durable commits without blocking the event loop. With synchronous = FULL, SQLite fsyncs its log inside COMMIT,
// and better-sqlite3 runs COMMIT on the Node thread: every request waited on every fsync (a third of an A2A
// message's throughput on the bench machine). The app's connection therefore commits with synchronous = NORMAL
// (WAL frames appended, not yet synced) and an answer that depends on a commit waits for `afterCommit()`: an
// fdatasync of the log file on libuv's thread pool, one for all the commits made while the previous one ran.
// A power loss can still undo only what was never answered (docs/operating.md, issue 32). SQLite itself syncs
// the log before every checkpoint, so a checkpoint never copies frames that are not on disk.
import fs from "node:fs";

/** Makes everything written to the log so far durable. */
export type LogSync = () => Promise<void>;

export class WalSync {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly sync: LogSync,
    /** Releases what the sync holds open (the log file's handle). */
    readonly close: () => void = ignore,
  ) {}

  /** The sync of the `-wal` file next to a SQLite database file. */
  static forDatabaseFile(databaseFile: string): WalSync {
    const log = walFileSync(walPathOf(databaseFile));
    return new WalSync(log.sync, log.close);
  }

  /**
   * Resolves once a sync that started after this call has finished (rejects with its error). A sync under way
   * may have started before the caller's commit, so callers arriving meanwhile share the next one.
   */
  afterCommit(): Promise<void> {
    if (this.running === null) return this.begin();
    this.queued ??= this.running.then(ignore, ignore).then(() => {
      this.queued = null;
      return this.begin();
    });
    return this.queued;
  }

  private begin(): Promise<void> {
    const run: Promise<void> = this.sync().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}

function ignore(): void {}

/** The `-wal` file next to a SQLite database file (sqlite.org/walformat.html). */
export function walPathOf(databaseFile: string): string {
  return `${databaseFile}-wal`;
}

/**
 * fdatasync of the log file, through a handle opened on first use. fsync is per file, not per descriptor, so it
 * flushes what SQLite's own descriptor wrote. The log keeps its inode while any connection is open (a checkpoint
 * rewinds it, never replaces it); a failed sync closes the handle, and the next one reopens it.
 */
export function walFileSync(walPath: string): { sync: LogSync; close: () => void } {
  let handle: Promise<fs.promises.FileHandle> | null = null;
  const drop = (): void => {
    const closing = handle;
    handle = null;
    void closing?.then(
      (opened) => opened.close().catch(ignore),
      () => undefined,
    );
  };
  return {
    sync: async () => {
      handle ??= fs.promises.open(walPath, "r");
      try {
        await (await handle).datasync();
      } catch (error) {
        drop();
        throw error;
      }
    },
    close: drop,
  };
}
