import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";

// An ES module (.mts), so Vite need not load ESM syntax as CommonJS (it warns about that since Vitest 5).
// Two kinds of tests: tests/unit (logic; those under tests/unit/db use a throwaway database) and
// tests/http (against a real `next start`). Playwright specs live in tests/e2e and are not run here.

/**
 * Logic files that set process-wide state other files must not see (the server entry's mark, lib/http/server-entry.ts;
 * OpenTelemetry's global propagator), or that measure the process's heap, which other files' garbage would distort.
 */
const PROCESS_STATE = ["agent-identity-listener", "proxy-body-check", "request-channel", "tracing", "docs-index-heap"].map((name) => `tests/unit/${name}.test.ts`);

const UNIT_FILES = fs
  .readdirSync(path.join(import.meta.dirname, "tests/unit"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => `tests/unit/${file}`);

/** Logic files that mock modules or reset the module registry: a mock must meet modules loaded for its own file. */
const MOCKING = UNIT_FILES.filter((file) => /\bvi\.(mock|doMock|resetModules|stubGlobal|stubEnv)\(/.test(fs.readFileSync(path.join(import.meta.dirname, file), "utf8")));

const ISOLATED_LOGIC = [...PROCESS_STATE, ...MOCKING];
/**
 * The other logic files, listed rather than matched with an `exclude` of the project's own: that replaced the command
 * line's `--exclude`, which npm test uses to keep tests/unit/db out of its SQLite pass (scripts/test-all.ts).
 */
const SHARED_LOGIC = UNIT_FILES.filter((file) => !ISOLATED_LOGIC.includes(file));

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    // Once, for both projects: the template database and the shared server.
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/unit-db.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
    env: { NEXT_TELEMETRY_DISABLED: "1" },
    projects: [
      // Issue 51 item 8: the other logic files share their worker's loaded modules (setupFiles still run before each
      // file, and start its configuration afresh): loading lib/ again for each of about a hundred files took half their time.
      {
        test: { name: "logic", include: SHARED_LOGIC, isolate: false, setupFiles: ["tests/support/close-connections.ts"] },
      },
      { test: { name: "isolated", include: ["tests/http/**/*.test.ts", ...ISOLATED_LOGIC] } },
    ],
  },
});
