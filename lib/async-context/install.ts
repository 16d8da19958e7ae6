// server.ts calls this before it loads Next: from then on every AsyncLocalStorage the process creates is a
// FrameAsyncLocalStorage (./index.ts), so Next's storages (created from globalThis.AsyncLocalStorage, which Next
// only sets when it is missing) and React's (created from node:async_hooks) cost the process one async-hook
// storage in all. A storage created before this call stays native. Only the production server installs it:
// under a bare `next start` or on Vercel everything works the same, with the runtime's own storages.
import asyncHooks from "node:async_hooks";
import { syncBuiltinESMExports } from "node:module";
import { FrameAsyncLocalStorage, prepareFrames, runtimeSharesFrames } from "./index";

/** Installs FrameAsyncLocalStorage as the process's AsyncLocalStorage; true if it did (false on Node 24 and later). */
export function shareAsyncContextFrames(): boolean {
  if (runtimeSharesFrames()) return false;
  const frameClass = FrameAsyncLocalStorage as unknown as typeof asyncHooks.AsyncLocalStorage;
  if (asyncHooks.AsyncLocalStorage === frameClass) return true;
  prepareFrames();
  (asyncHooks as { AsyncLocalStorage: unknown }).AsyncLocalStorage = frameClass;
  // Node's documented way to let `import { AsyncLocalStorage } from "node:async_hooks"` see the new export too.
  syncBuiltinESMExports();
  (globalThis as typeof globalThis & { AsyncLocalStorage?: unknown }).AsyncLocalStorage = frameClass;
  return true;
}
