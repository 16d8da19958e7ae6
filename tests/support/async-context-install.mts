// Run by tests/unit/async-context.test.ts in a process of its own (the install changes the process's globals):
// installs the shared frames as server.ts does, then reports, as one JSON line, what storages created before and
// after it are, and how many slots ten storages in use add to a promise beyond one storage.
import { createRequire } from "node:module";
import { shareAsyncContextFrames } from "../../lib/async-context/install";

interface StorageLike {
  run<R>(store: unknown, fn: () => R): R;
}
type StorageClass = new () => StorageLike;

const require = createRequire(import.meta.url);
// By name: tsx may load lib/async-context twice here (once for this ES module, once for install's CommonJS).
const kind = (storage: unknown): string => ((storage as object).constructor.name === "FrameAsyncLocalStorage" ? "frame" : "native");

const earlierStorage: unknown = new (require("node:async_hooks") as { AsyncLocalStorage: StorageClass }).AsyncLocalStorage();
const installed = shareAsyncContextFrames();
const viaRequire = new (require("node:async_hooks") as { AsyncLocalStorage: StorageClass }).AsyncLocalStorage();
const viaImport = new ((await import("node:async_hooks")) as unknown as { AsyncLocalStorage: StorageClass }).AsyncLocalStorage();
const globalClass = (globalThis as { AsyncLocalStorage?: StorageClass }).AsyncLocalStorage;

function promiseSlots(storages: StorageLike[]): number {
  const nest = (i: number): Promise<void> => (i === storages.length ? Promise.resolve() : storages[i]!.run(i, () => nest(i + 1)));
  return Object.getOwnPropertySymbols(nest(0)).length;
}
const ten = Array.from({ length: 10 }, () => new (require("node:async_hooks") as { AsyncLocalStorage: StorageClass }).AsyncLocalStorage());
const one = promiseSlots([viaRequire]);

process.stdout.write(
  JSON.stringify({
    installed,
    viaRequire: kind(viaRequire),
    viaImport: kind(viaImport),
    viaGlobal: globalClass ? kind(new globalClass()) : "missing",
    earlier: kind(earlierStorage),
    promiseSlotsAdded: promiseSlots(ten) - one,
  }) + "\n",
);
