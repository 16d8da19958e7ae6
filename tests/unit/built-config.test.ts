// The production entry hands Next the build's resolved configuration (lib/server/built-config.ts) so that Next does
// not compile next.config.ts at start (and map its SWC binary). An operator's own value and a missing build win.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILT_CONFIG_VARIABLE, applyBuiltNextConfig } from "@/lib/server/built-config";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function appDir(requiredServerFiles: string | null): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "built-config-"));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, ".next"));
  if (requiredServerFiles !== null) fs.writeFileSync(path.join(dir, ".next", "required-server-files.json"), requiredServerFiles);
  return dir;
}

describe("applyBuiltNextConfig", () => {
  it("puts the build's resolved config, exactly, in the variable Next's config loader reads", () => {
    const config = { distDir: ".next", poweredByHeader: false, serverExternalPackages: ["better-sqlite3", "pg"] };
    const env: Record<string, string | undefined> = {};
    expect(applyBuiltNextConfig(appDir(JSON.stringify({ version: 1, config, files: [] })), env)).toBe(true);
    expect(JSON.parse(env[BUILT_CONFIG_VARIABLE]!)).toEqual(config);
  });

  it("leaves a value already set alone", () => {
    const env: Record<string, string | undefined> = { [BUILT_CONFIG_VARIABLE]: '{"distDir":"custom"}' };
    expect(applyBuiltNextConfig(appDir(JSON.stringify({ config: { distDir: ".next" } })), env)).toBe(false);
    expect(env[BUILT_CONFIG_VARIABLE]).toBe('{"distDir":"custom"}');
  });

  it("changes nothing without a build, with an unreadable file or without a config in it (Next then loads next.config.ts)", () => {
    for (const contents of [null, "{not json", JSON.stringify({ version: 1 }), JSON.stringify({ config: "x" })]) {
      const env: Record<string, string | undefined> = {};
      expect(applyBuiltNextConfig(appDir(contents), env)).toBe(false);
      expect(env).toEqual({});
    }
  });
});
