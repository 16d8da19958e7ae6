// ESLint (flat config): Next's rules (core web vitals, its TypeScript set) and typescript-eslint's recommended
// rules. Every rule switched off or down below says why in one line.
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypeScript from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTypeScript,
  globalIgnores([
    ".next/**",
    "dist/**",
    "lib/generated/**",
    "node_modules/**",
    ".tmp/**",
    "data/**",
    "bench/results/**",
    "test-results/**",
    "playwright-report/**",
    "next-env.d.ts",
  ]),
  {
    // A leading underscore marks a binding left unused on purpose (e.g. a member dropped by rest destructuring).
    rules: { "@typescript-eslint/no-unused-vars": ["warn", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }] },
  },
  {
    // Test helpers named use… (useAuthServer, useServerDatabase) are Vitest set-up, not React hooks.
    files: ["tests/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
]);
