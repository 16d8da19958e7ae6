// ESLint (flat config): Next's rules (core web vitals, its TypeScript set) and typescript-eslint's recommended
// rules. Every rule switched off or down below says why in one line.
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypeScript from "eslint-config-next/typescript";
import layers from "./eslint.layers.json" with { type: "json" };

// Imports go downwards (DEVELOPING.md): surfaces → domain → infrastructure. eslint.layers.json places every folder
// of lib/ in a layer and names the leaves that import (almost) nothing of ours; tests/unit/layers.test.ts reads the
// same file to check the folder graph has no cycle.
const lib = (folder) => `./lib/${folder}`;
const { infrastructure, domain, surfaces } = layers.layers;
const layerZones = [
  ...infrastructure.map((folder) => ({
    target: lib(folder),
    from: [...domain, ...surfaces].map(lib),
    message: "Infrastructure imports only infrastructure: pass the function in, or move the code down.",
  })),
  ...domain.map((folder) => ({
    target: lib(folder),
    from: surfaces.map(lib),
    message: "The domain never imports a surface: pass the function in, or move the code down.",
  })),
  ...Object.entries(layers.leaves).map(([folder, allowed]) => ({
    target: lib(folder),
    from: "./lib",
    except: [folder, ...allowed].map((name) => `./${name}`),
    message: `lib/${folder} imports ${allowed.length === 0 ? "nothing of ours" : allowed.map((name) => `lib/${name}`).join(", ") + " only"}.`,
  })),
  // Route bundles never import the server; the Prisma CLI's adapters need only the SQLite path rule.
  { target: "./app", from: ["./lib/server", "./server.ts"], message: "Route bundles never import the server." },
  { target: "./prisma", from: "./lib", except: ["./db/sqlite-path.ts"], message: "prisma/ imports lib/db/sqlite-path.ts only." },
];

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
    // Configuration is read in lib/config only (issues 33, 43): its schema checks every variable at start. scripts/,
    // tests/, bench/ and the prisma configs read the environment themselves; instrumentation.ts must test
    // process.env.NEXT_RUNTIME literally (Next replaces it at build; tests/unit/config-reader.test.ts checks the rest).
    files: ["lib/**", "app/**", "proxy.ts", "server.ts"],
    ignores: ["lib/config/**"],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through lib/config (getConfig()); add the variable to lib/config/schema.ts." },
      ],
    },
  },
  {
    files: ["lib/**", "app/**", "prisma/**"],
    rules: { "import/no-restricted-paths": ["error", { zones: layerZones }] },
  },
  {
    // Test helpers named use… (useAuthServer, useServerDatabase) are Vitest set-up, not React hooks.
    files: ["tests/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
]);
