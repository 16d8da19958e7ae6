// Group commit for the one SQLite connection. Every raw transaction used to pay its own COMMIT: a WAL
// append of each page it touched (two pwrite calls per page) plus the log's bookkeeping — a third of a
// token exchange's CPU (bench/README.md). The raw transactions that start in the same event-loop iteration
// (the requests read from the sockets in one poll phase) now share one SQLite transaction: each after the
// first runs in its own savepoint, so a failure rolls back its statements alone; one COMMIT at the end of the
// iteration (setImmediate) commits them together and one sync of the log (./wal-sync.ts) makes them durable;
// pages they share (a table's last page, a time-ordered primary key's) are written once. Every caller's promise
// settles only after that COMMIT and that sync, so no answer is sent on a write that is not durable. Jobs run one
// after another, never interleaved, in arrival order, exactly as they did behind the gate one at a time.
//
// Batches (joinBatch) go one step further for writes that many requests make alike (each A2A message's count
// and task row): a caller hands the group an item instead of a job, and once the group's jobs have finished
// the batch runs once for all its items (one multi-row statement rather than one statement and a savepoint
// each), in its own savepoint, before the COMMIT.
import type { ConnectionGate, GateRelease } from "./gate";

/** The connection as group commit needs it. */
export interface GroupConnection<Q> {
  gate: ConnectionGate;
  /** Runs one statement that returns nothing (BEGIN IMMEDIATE, SAVEPOINT, COMMIT …). */
  run(sql: string): void;
  /** Whether SQLite has a transaction open (an I/O or disk-full error may roll back all of it). */
  inTransaction(): boolean;
  /** What a job's statements run on. */
  executor: Q;
  /**
   * Settles once what was committed is durable (./wal-sync.ts); the group's callers settle after it. None: COMMIT
   * itself made it durable.
   */
  afterCommit?: () => Promise<void>;
}

interface Finished {
  commit(): void;
  fail(error: unknown): void;
}

/**
 * Writes that many callers make alike, run once per group for all of them: `run` gets every item handed to the
 * group (in arrival order) and returns one result per item, in the same order.
 */
export interface GroupBatch<Q, I, R> {
  run(q: Q, items: readonly I[]): Promise<readonly R[]>;
}

/** A batch's items in one group, and their callers. */
interface PendingBatch<Q> {
  batch: GroupBatch<Q, unknown, unknown>;
  items: unknown[];
  callers: { resolve: (result: unknown) => void; reject: (error: unknown) => void }[];
}

interface CommitGroup {
  release: GateRelease;
  /** Settles when the last queued job has finished; the next job starts after it. */
  tail: Promise<void>;
  /** Jobs (and batches) whose savepoint was released: they settle with the group's COMMIT. */
  finished: Finished[];
  /** The batches handed items, in the order of their first item: they run after the jobs. */
  batches: Map<GroupBatch<never, never, unknown>, PendingBatch<never>>;
  /** Set at the end of the iteration: later callers open the next group. */
  closing: boolean;
}

/** Per connection: the group taking jobs now, and one waiting for the gate (callers meanwhile join it). */
interface GroupState {
  open?: CommitGroup;
  opening?: Promise<CommitGroup>;
}

const states = new WeakMap<GroupConnection<unknown>, GroupState>();

function stateOf<Q>(connection: GroupConnection<Q>): GroupState {
  let state = states.get(connection);
  if (!state) {
    state = {};
    states.set(connection, state);
  }
  return state;
}

/** Thrown to a finished job when SQLite rolled the whole transaction back before its COMMIT. */
export class GroupRolledBackError extends Error {
  constructor(cause: unknown) {
    super("the SQLite transaction was rolled back before it committed", { cause });
    this.name = "GroupRolledBackError";
  }
}

/**
 * Runs `job` inside the connection's open group, or opens one. Resolves with the job's result once the group
 * has committed; rejects at once when the job throws (its statements rolled back).
 */
export function runInGroup<Q, T>(connection: GroupConnection<Q>, job: (q: Q) => Promise<T>): Promise<T> {
  return inOpenGroup(connection, (group) => enqueue(group, connection, job));
}

/**
 * Hands `item` to `batch` in the connection's open group, or opens one. Resolves with the item's result once the
 * group has committed; rejects when the batch throws (its statements rolled back, the group's jobs unharmed).
 */
export function joinBatch<Q, I, R>(connection: GroupConnection<Q>, batch: GroupBatch<Q, I, R>, item: I): Promise<R> {
  return inOpenGroup(connection, (group) => addToBatch(group, batch, item));
}

function inOpenGroup<Q, T>(connection: GroupConnection<Q>, join: (group: CommitGroup) => Promise<T>): Promise<T> {
  const state = stateOf(connection);
  if (state.open && !state.open.closing) return join(state.open);
  if (!state.opening) {
    const release = connection.gate.tryAcquire("raw");
    if (release) return new Promise<T>((resolve) => resolve(join(openGroup(state, connection, release))));
    state.opening = connection.gate.acquire("raw").then((granted) => {
      state.opening = undefined;
      return openGroup(state, connection, granted);
    });
  }
  return state.opening.then(join);
}

function addToBatch<Q, I, R>(group: CommitGroup, batch: GroupBatch<Q, I, R>, item: I): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const key = batch as unknown as GroupBatch<never, never, unknown>;
    let pending = group.batches.get(key);
    if (!pending) {
      pending = { batch: key, items: [], callers: [] };
      group.batches.set(key, pending);
    }
    pending.items.push(item as never);
    pending.callers.push({ resolve: resolve as (result: unknown) => void, reject });
  });
}

function openGroup<Q>(state: GroupState, connection: GroupConnection<Q>, release: GateRelease): CommitGroup {
  try {
    // IMMEDIATE: take the write lock at BEGIN (other processes, e.g. the CLI, wait or fail here, not mid-way).
    connection.run("BEGIN IMMEDIATE");
  } catch (error) {
    release();
    throw error;
  }
  const group: CommitGroup = { release, tail: Promise.resolve(), finished: [], batches: new Map(), closing: false };
  state.open = group;
  setImmediate(() => close(state, connection, group));
  return group;
}

function enqueue<Q, T>(group: CommitGroup, connection: GroupConnection<Q>, job: (q: Q) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // A job that finds no other job's writes in the transaction needs no savepoint: if it fails, rolling
    // the whole transaction back loses nothing else (most groups under light load hold one job).
    let first = true;
    const failed = (error: unknown): void => {
      undoWrites(connection, first ? null : "group_job");
      reject(error);
    };
    const succeeded = (result: T): void => {
      try {
        if (!first) connection.run("RELEASE group_job");
      } catch (error) {
        failed(error);
        return;
      }
      group.finished.push({ commit: () => resolve(result), fail: reject });
    };
    // The tail settles only once the job has.
    group.tail = group.tail.then(() => {
      try {
        beginIfEnded(group, connection);
        first = group.finished.length === 0;
        if (!first) connection.run("SAVEPOINT group_job");
      } catch (error) {
        reject(error);
        return;
      }
      return new Promise<T>((resolve) => resolve(job(connection.executor))).then(succeeded, failed);
    });
  });
}

/**
 * Undoes a failed job's or batch's writes: back to its savepoint, or the whole transaction when it has none (it
 * was alone in it). Should that fail, its writes must not be committed: the whole transaction ends (beginIfEnded
 * and close then fail the jobs finished before it). Nothing to undo when SQLite has already ended it.
 */
function undoWrites<Q>(connection: GroupConnection<Q>, savepoint: string | null): void {
  if (!connection.inTransaction()) return;
  try {
    if (savepoint === null) connection.run("ROLLBACK");
    else {
      connection.run(`ROLLBACK TO ${savepoint}`);
      connection.run(`RELEASE ${savepoint}`);
    }
  } catch {
    try {
      connection.run("ROLLBACK");
    } catch {
      // SQLite has already ended it.
    }
  }
}

/**
 * Begins a new transaction when the group's has ended: after a first job's failure rolled it back, or after
 * SQLite rolled it back on its own (I/O error, disk full), in which case the finished jobs' writes are gone.
 */
function beginIfEnded<Q>(group: CommitGroup, connection: GroupConnection<Q>): void {
  if (connection.inTransaction()) return;
  failFinished(group, new GroupRolledBackError(undefined));
  connection.run("BEGIN IMMEDIATE");
}

function failFinished(group: CommitGroup, error: unknown): void {
  const finished = group.finished;
  group.finished = [];
  for (const job of finished) job.fail(error);
}

/**
 * Runs each batch once for all its items, after the group's jobs, each in a savepoint: a batch that throws rolls
 * back its own statements and rejects its own callers only.
 */
async function runBatches<Q>(group: CommitGroup, connection: GroupConnection<Q>): Promise<void> {
  for (const pending of group.batches.values()) {
    const { batch, items, callers } = pending as unknown as PendingBatch<Q>;
    const rejectAll = (error: unknown): void => {
      for (const caller of callers) caller.reject(error);
    };
    try {
      beginIfEnded(group, connection);
      connection.run("SAVEPOINT group_batch");
    } catch (error) {
      rejectAll(error);
      continue;
    }
    try {
      const results = await batch.run(connection.executor, items);
      if (results.length !== items.length) throw new Error(`a batch returned ${results.length} results for ${items.length} items`);
      connection.run("RELEASE group_batch");
      callers.forEach((caller, index) => group.finished.push({ commit: () => caller.resolve(results[index]), fail: caller.reject }));
    } catch (error) {
      undoWrites(connection, "group_batch");
      rejectAll(error);
    }
  }
  group.batches.clear();
}

function close<Q>(state: GroupState, connection: GroupConnection<Q>, group: CommitGroup): void {
  group.closing = true;
  if (state.open === group) state.open = undefined;
  // A job may still await something truly asynchronous (e.g. a signature); the batches run after the last one,
  // then the COMMIT.
  void group.tail
    .then(() => (group.batches.size > 0 ? runBatches(group, connection) : undefined))
    .then(() => {
      const finished = group.finished;
      group.finished = [];
      try {
        if (connection.inTransaction()) connection.run("COMMIT");
        else if (finished.length > 0) throw new GroupRolledBackError(undefined);
      } catch (error) {
        try {
          if (connection.inTransaction()) connection.run("ROLLBACK");
        } catch {
          // Nothing more to undo: SQLite has already ended the transaction.
        }
        group.release();
        for (const job of finished) job.fail(error);
        return;
      }
      // The next group may begin while the log is synced; this one's callers hear of their commit only after.
      group.release();
      if (!connection.afterCommit || finished.length === 0) {
        for (const job of finished) job.commit();
        return;
      }
      connection.afterCommit().then(
        () => {
          for (const job of finished) job.commit();
        },
        (error: unknown) => {
          for (const job of finished) job.fail(error);
        },
      );
    });
}
