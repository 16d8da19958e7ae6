// The process's one registry of shared state (issue 43 item 4), and the only module that touches globalThis
// (tests/unit/one-registry.test.ts). Under `npm start` every module of lib/ is loaded more than once in one process:
// dist/server.mjs bundles its own copy, and Next loads the copy its build bundled for the route handlers. What must
// exist once per process (the database connection, the logger, the metrics, the rate-limit windows, the pacer, the
// docs corpus…) is therefore kept here, under a Symbol.for key that every copy of this module reaches.
// DEVELOPING.md ("One registry of process state") says why lib/ is not loaded once instead.

/**
 * The process's one value named `name`, made by `make` the first time any copy of any module asks for it. An object,
 * so that what one copy changes in it the other copies see (a module keeps the object and mutates its fields).
 */
export function processSingleton<T extends object>(name: string, make: () => T): T {
  const key = Symbol.for(`agent-gate.${name}`);
  const slots = globalThis as unknown as Record<symbol, T | undefined>;
  return (slots[key] ??= make());
}
