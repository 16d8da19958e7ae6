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
    // Configuration is read in lib/config only (issue 33): its schema checks every variable at start. scripts/,
    // tests/, bench/ and the prisma configs read the environment themselves; server.ts is the entry;
    // instrumentation.ts must test process.env.NEXT_RUNTIME literally (Next replaces it at build).
    files: ["lib/**", "app/**", "proxy.ts"],
    ignores: ["lib/config/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through lib/config (getConfig(), setting()); add the variable to lib/config/schema.ts." },
      ],
    },
  },
  {
    // Test helpers named use… (useAuthServer, useServerDatabase) are Vitest set-up, not React hooks.
    files: ["tests/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
]);
