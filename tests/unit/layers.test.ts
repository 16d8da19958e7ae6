// Issue 33: imports go downwards (surfaces → domain → infrastructure), and the folders of lib/ form no cycle.
// ESLint's import/no-restricted-paths (eslint.config.mjs) refuses a wrong import as it is written; this test
// reads the same source to check what a per-file rule cannot see: the folder graph as a whole, its cycles,
// and that every folder of lib/ has a layer.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import layers from "../../eslint.layers.json";

const ROOT = path.resolve(__dirname, "../..");
const RANK = { infrastructure: 0, domain: 1, surfaces: 2 } as const;
type Layer = keyof typeof RANK;

const layerOf = new Map<string, Layer>(Object.entries(layers.layers).flatMap(([layer, folders]) => folders.map((folder) => [folder, layer as Layer] as const)));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(relative);
    return /\.(m?ts|tsx)$/.test(entry.name) ? [relative] : [];
  });
}

// Static imports, re-exports and dynamic import() of a string literal.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)"([^"]+)"/gm;

/** The lib/ folder a specifier names, or null when it leaves lib/ (a package, node:, app/). */
function targetFolder(file: string, specifier: string): string | null {
  let target: string;
  if (specifier.startsWith("@/")) target = specifier.slice(2);
  else if (specifier.startsWith(".")) target = path.join(path.dirname(file), specifier);
  else return null;
  const parts = target.split(path.sep).join("/").split("/");
  return parts[0] === "lib" && parts.length > 1 ? parts[1]! : null;
}

/** folder → folder → the files that make the edge. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles("lib")) {
    const from = file.split(path.sep)[1]!;
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    for (const match of text.matchAll(SPECIFIER)) {
      const to = targetFolder(file, match[1]!);
      if (to === null || to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), file]);
    }
  }
  return graph;
}

/** Every strongly connected component of more than one folder (Tarjan). */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("lib/ layers", () => {
  const graph = folderGraph();

  it("every folder of lib/ has a layer", () => {
    const folders = fs
      .readdirSync(path.join(ROOT, "lib"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== "generated")
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
  });

  it("imports go downwards: surfaces → domain → infrastructure", () => {
    const upwards: string[] = [];
    for (const [from, edges] of graph) {
      for (const [to, files] of edges) {
        if (to === "generated") continue;
        if (RANK[layerOf.get(from)!] < RANK[layerOf.get(to)!]) upwards.push(`${files[0]} (${layerOf.get(from)}) → lib/${to} (${layerOf.get(to)})`);
      }
    }
    expect(upwards).toEqual([]);
  });

  it("the leaves import only what DEVELOPING.md allows them", () => {
    const strays: string[] = [];
    for (const [folder, allowed] of Object.entries(layers.leaves) as [string, readonly string[]][]) {
      for (const [to, files] of graph.get(folder) ?? []) if (!allowed.includes(to)) strays.push(`${files[0]} → lib/${to}`);
    }
    expect(strays).toEqual([]);
  });

  it("the folders of lib/ import one another without a cycle", () => {
    expect(cycles(graph)).toEqual([]);
  });
});
