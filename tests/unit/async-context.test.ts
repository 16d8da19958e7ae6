// lib/async-context: storages that share one frame. They must answer as the runtime's AsyncLocalStorage does
// (checked against it on random programs of runs, exits, awaits and concurrent flows), and a promise must cost
// the process one storage however many are in use (the reason they exist).
import { AsyncLocalStorage } from "node:async_hooks";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ContextStorage, FrameAsyncLocalStorage, runtimeSharesFrames } from "@/lib/async-context";

interface Storage {
  getStore(): unknown;
  run<R>(store: unknown, fn: () => R): R;
}

const nextTurn = (how: "microtask" | "immediate" | "timeout"): Promise<void> =>
  how === "microtask" ? Promise.resolve() : new Promise((resolve) => (how === "immediate" ? setImmediate(resolve) : setTimeout(resolve, 0)));

describe("FrameAsyncLocalStorage", () => {
  it("keeps each storage's value through awaits, timers and immediates, and restores it when a run ends", async () => {
    const a = new FrameAsyncLocalStorage<string>();
    const b = new FrameAsyncLocalStorage<string>();
    expect(a.getStore()).toBeUndefined();
    await a.run("a1", async () => {
      expect(a.getStore()).toBe("a1");
      await b.run("b1", async () => {
        await nextTurn("timeout");
        expect([a.getStore(), b.getStore()]).toEqual(["a1", "b1"]);
        a.run("a2", () => expect([a.getStore(), b.getStore()]).toEqual(["a2", "b1"]));
        expect(a.getStore()).toBe("a1");
        await nextTurn("immediate");
        expect(b.getStore()).toBe("b1");
      });
      expect(b.getStore()).toBeUndefined();
      expect(a.getStore()).toBe("a1");
    });
    expect(a.getStore()).toBeUndefined();
  });

  it("keeps concurrent flows apart", async () => {
    const storage = new FrameAsyncLocalStorage<number>();
    const seen = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        storage.run(i, async () => {
          const values: (number | undefined)[] = [];
          for (const how of ["microtask", "timeout", "immediate", "microtask"] as const) {
            await nextTurn(how);
            values.push(storage.getStore());
          }
          return values;
        }),
      ),
    );
    seen.forEach((values, i) => expect(values).toEqual([i, i, i, i]));
  });

  it("exit() hides only its own storage; enterWith() holds for the rest of the flow, up to the end of the run around it", async () => {
    const a = new FrameAsyncLocalStorage<string>();
    const b = new FrameAsyncLocalStorage<string>();
    await a.run("a", () =>
      b.run("b", async () => {
        await a.exit(async () => {
          expect([a.getStore(), b.getStore()]).toEqual([undefined, "b"]);
          a.run("inside", () => undefined);
          await nextTurn("timeout");
          // Also in what the callback started, and after a run inside it (Node 20's own exit() fails both).
          expect([a.getStore(), b.getStore()]).toEqual([undefined, "b"]);
        });
        expect(a.getStore()).toBe("a");
      }),
    );
    await a.run("outer", async () => {
      b.run("inner", () => {
        a.enterWith("entered");
        expect([a.getStore(), b.getStore()]).toEqual(["entered", "inner"]);
      });
      // As on Node 24: the run restored its whole frame.
      expect([a.getStore(), b.getStore()]).toEqual(["outer", undefined]);
      a.enterWith("later");
      await nextTurn("timeout");
      expect(a.getStore()).toBe("later");
    });
  });

  it("disable() empties the storage until its next run", () => {
    const storage = new FrameAsyncLocalStorage<string>();
    storage.run("x", () => {
      storage.disable();
      expect(storage.getStore()).toBeUndefined();
    });
    expect(storage.run("y", () => storage.getStore())).toBe("y");
  });

  it("bind and snapshot carry every storage's value, native ones included", async () => {
    const frame = new FrameAsyncLocalStorage<string>();
    const native = new AsyncLocalStorage<string>();
    const [bound, snapshot] = frame.run("f", () =>
      native.run("n", () => [FrameAsyncLocalStorage.bind(() => [frame.getStore(), native.getStore()]), FrameAsyncLocalStorage.snapshot()] as const),
    );
    await nextTurn("timeout");
    expect(bound()).toEqual(["f", "n"]);
    expect(snapshot(() => [frame.getStore(), native.getStore()])).toEqual(["f", "n"]);
  });

  // Random programs, run once on two native storages and once on two frame storages: every read sees the same.
  // (Not exit(): Node 20's only disables the storage while its callback runs synchronously, so a run() inside it
  // re-enables it and an await inside it sees the store again; the frame storage does as the documentation and
  // Node 24 do, which the test above checks.)
  type Op =
    { kind: "run"; storage: 0 | 1; value: number; body: Op[] } | { kind: "fork"; body: Op[] } | { kind: "await"; how: "microtask" | "immediate" | "timeout" } | { kind: "read" };
  const program = fc.letrec<{ ops: Op[]; op: Op }>((tie) => ({
    ops: fc.array(tie("op"), { maxLength: 5 }),
    op: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant<Op>({ kind: "read" }),
      fc.constantFrom<Op>({ kind: "await", how: "microtask" }, { kind: "await", how: "immediate" }, { kind: "await", how: "timeout" }),
      fc.record({
        kind: fc.constant("run" as const),
        storage: fc.constantFrom(0 as const, 1 as const),
        value: fc.integer({ min: 0, max: 9 }),
        body: tie("ops") as fc.Arbitrary<Op[]>,
      }),
      fc.record({ kind: fc.constant("fork" as const), body: tie("ops") as fc.Arbitrary<Op[]> }),
    ),
  })).ops;

  async function execute(ops: Op[], storages: [Storage, Storage], reads: Map<string, unknown>, at: string): Promise<void> {
    const forks: Promise<void>[] = [];
    for (const [i, op] of ops.entries()) {
      const here = `${at}.${i}`;
      if (op.kind === "read") reads.set(here, [storages[0].getStore(), storages[1].getStore()]);
      else if (op.kind === "await") await nextTurn(op.how);
      else if (op.kind === "run") await storages[op.storage].run(op.value, () => execute(op.body, storages, reads, here));
      else forks.push(execute(op.body, storages, reads, here));
    }
    await Promise.all(forks);
  }

  it("answers as the runtime's AsyncLocalStorage on random programs (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(program, async (ops) => {
        const expected = new Map<string, unknown>();
        const actual = new Map<string, unknown>();
        await execute(ops, [new AsyncLocalStorage(), new AsyncLocalStorage()], expected, "");
        await execute(ops, [new FrameAsyncLocalStorage(), new FrameAsyncLocalStorage()], actual, "");
        expect(actual).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});

describe("what a storage costs a promise", () => {
  /** Own properties a promise made inside runs of `storages` carries (Node 20 puts one there per storage in use). */
  function promiseSlots(storages: Storage[]): number {
    const nest = (i: number): Promise<void> => (i === storages.length ? Promise.resolve() : storages[i]!.run(i, () => nest(i + 1)));
    return Object.getOwnPropertySymbols(nest(0)).length;
  }

  it("five frame storages in use cost a promise no more than one storage does", () => {
    const one = promiseSlots([new FrameAsyncLocalStorage()]);
    const five = promiseSlots(Array.from({ length: 5 }, () => new FrameAsyncLocalStorage()));
    expect(five).toBe(one);
    // The control: on Node 20 five more native storages in use cost five more slots; Node 24 (AsyncContextFrame) has none per storage.
    const nativeOne = promiseSlots([new AsyncLocalStorage()]);
    const nativeFive = promiseSlots(Array.from({ length: 5 }, () => new AsyncLocalStorage()));
    expect(nativeFive - nativeOne).toBe(runtimeSharesFrames() ? 0 : 5);
  });

  it("our modules use the frame storage where the runtime does not share frames itself", () => {
    expect(runtimeSharesFrames("20.20.2")).toBe(false);
    expect(runtimeSharesFrames("24.11.0")).toBe(true);
    expect(ContextStorage).toBe(runtimeSharesFrames() ? AsyncLocalStorage : FrameAsyncLocalStorage);
  });
});
