// Loaded with --import into the production server by tests/http/server-entry.test.ts: counts the async-context
// storages that Node propagates into promises through its async hook (Node 20: one call per storage in use per
// promise; Node 24's AsyncContextFrame has no such hook) and writes the count to ASYNC_CONTEXT_PROBE_OUT at exit.
import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";

const propagate = AsyncLocalStorage.prototype._propagate;
const propagating = new Set();
if (typeof propagate === "function") {
  AsyncLocalStorage.prototype._propagate = function (...args) {
    propagating.add(this);
    return propagate.apply(this, args);
  };
}
process.on("exit", () => {
  const report = typeof propagate === "function" ? { hook: true, storages: propagating.size } : { hook: false, storages: 0 };
  fs.writeFileSync(process.env.ASYNC_CONTEXT_PROBE_OUT, JSON.stringify(report));
});
