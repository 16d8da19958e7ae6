// Issue 43 item 4: every module of lib/ is loaded twice under `npm start` (dist/server.mjs's bundle and Next's), so
// state that must be one per process lives in ONE registry, lib/registry (DEVELOPING.md "One registry of process
// state"). No other module of the app's source touches globalThis (or Node's `global`): found with TypeScript's own
// scanner, so comments and strings that name it do not count and no spelling of an access escapes.
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it, vi } from "vitest";
import { useTestConfigAfterReset } from "../support/config";
import { APP_SOURCE, isMemberName, ROOT, tokens } from "../support/source-scan";

const REGISTRY = path.join("lib", "registry", "index.ts");

/** `file:line` of each reach for the global object: `globalThis`, or `global` used as Node's (not `x.global`, not a key). */
function globalObjectUses(file: string): string[] {
  const list = tokens(file);
  const uses = list.flatMap((token, i) => {
    if (token.kind !== ts.SyntaxKind.Identifier) return [];
    const after = list[i + 1]?.kind;
    const member = isMemberName(list, i);
    const isGlobalThis = token.text === "globalThis" && !member;
    const isNodeGlobal = token.text === "global" && !member && (after === ts.SyntaxKind.DotToken || after === ts.SyntaxKind.OpenBracketToken);
    return isGlobalThis || isNodeGlobal ? [`${file}:${token.line}`] : [];
  });
  return [...new Set(uses)];
}

describe("one registry of process state", () => {
  it("scans the app's source, lib/registry included", () => {
    expect(APP_SOURCE).toContain(REGISTRY);
    expect(APP_SOURCE).toContain("server.ts");
    expect(APP_SOURCE.some((file) => file.startsWith(`app${path.sep}`))).toBe(true);
    expect(APP_SOURCE.some((file) => file.startsWith(path.join("lib", "generated")))).toBe(false);
  });

  it("finds the registry's own use, so the scan sees what it looks for", () => {
    expect(globalObjectUses(REGISTRY).length).toBeGreaterThan(0);
  });

  it("lets no module outside lib/registry touch globalThis", () => {
    const outside = APP_SOURCE.filter((file) => file !== REGISTRY).flatMap(globalObjectUses);
    expect(outside, "keep process-wide state with processSingleton() of lib/registry").toEqual([]);
  });

  it("gives every process-wide value its own name", () => {
    const names = APP_SOURCE.flatMap((file) => [...fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(/processSingleton(?:<[^(]*>)?\(\s*"([^"]+)"/g)].map((m) => m[1]!));
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it("hands two copies of a module the same value, as server.ts's bundle and Next's share one", async () => {
    const first = await import("@/lib/registry");
    const firstLimits = await import("@/lib/shared-state");
    vi.resetModules();
    const second = await import("@/lib/registry");
    const secondLimits = await import("@/lib/shared-state");
    await useTestConfigAfterReset();
    expect(second).not.toBe(first);
    expect(secondLimits.sharedStateStore).not.toBe(firstLimits.sharedStateStore);

    const made = first.processSingleton("test.one-registry", () => ({ copies: 1 }));
    expect(second.processSingleton("test.one-registry", () => ({ copies: 2 }))).toBe(made);
    // A module's state through the registry: what one copy counts, the other sees.
    expect(secondLimits.sharedStateStore()).toBe(firstLimits.sharedStateStore());
  });
});
