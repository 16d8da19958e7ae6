import { defineConfig } from "vitest/config";

// An ES module (.mts), so Vite need not load ESM syntax as CommonJS (it warns about that since Vitest 5).
// Two kinds of tests: tests/unit (logic; those under tests/unit/db use a throwaway database) and
// tests/http (against a real `next start`). Playwright specs live in tests/e2e and are not run here.
export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/http/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/unit-db.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
    env: { NEXT_TELEMETRY_DISABLED: "1" },
  },
});
